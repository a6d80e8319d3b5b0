import { earlierEnd, EXPIRY_DAY_CHOICES, GRACE_CHOICES, hasExpired, parseGrace, type GraceChoice } from '../domain/key-lifetime';
import type { KeyEnv } from '../domain/keys';
import type { KeyListing } from '../services/account-store';
import { utcMinute, type AccountSession, type Flash } from '../services/accounts';
import { KEY_USE_RESOLUTION_MS } from '../services/key-use';
import { html, type SafeHtml } from './html';
import { confirmForm, csrfField, day, layout } from './layout';

/** The key parts of the account page: the key shown once, the create form, the list, and the confirmation steps. */

/** The new key, shown once, with where MCP clients reach the API with it. */
export function newKeySection(key: NonNullable<Flash['newKey']>, origin: string): SafeHtml {
  return html`
<section class="new-key" aria-labelledby="new-key-title">
  <h2 id="new-key-title">Your new ${key.env} key</h2>
  <p class="error"><strong>Copy it now and store it safely: it is shown only this once.</strong> Only a hash of it is kept, so nobody can show it to you again.</p>
  <code id="new-key">${key.key}</code>
  <button type="button" class="secondary" data-copy="new-key" hidden>Copy</button>
  ${key.expiresAt ? html`<p>It stops working at <strong>${utcMinute(key.expiresAt)}</strong>.</p>` : ''}
  <p class="mcp">AI agents: the MCP server is <code id="mcp-url">${origin}/mcp</code> (Streamable HTTP); configure your MCP client to send the header <code>Authorization: Bearer &lt;your key&gt;</code>.</p>
</section>`;
}

const GRACE_LABELS: Record<GraceChoice, string> = { '0': 'Now', '1h': 'In 1 hour', '24h': 'In 24 hours', '7d': 'In 7 days' };

/** The create form's two choices: the environment (this server's first) and the expiry (none, 30/60/90 days, or a date). */
export function createKeyForm(session: AccountSession, serverEnv: KeyEnv, now: string): SafeHtml {
  const other: KeyEnv = serverEnv === 'live' ? 'test' : 'live';
  const inDays = (days: number) => new Date(Date.parse(now) + days * 86_400_000).toISOString();
  const tomorrow = inDays(1).slice(0, 10);
  return html`
<form method="post" action="/account/keys">
  ${csrfField(session)}
  <fieldset>
    <legend>Environment</legend>
    <label><input type="radio" name="env" value="${serverEnv}" checked> ${serverEnv} (msr_${serverEnv}_…, accepted by this server)</label>
    <label><input type="radio" name="env" value="${other}"> ${other} (msr_${other}_…, will not work on this server, which accepts only ${serverEnv} keys)</label>
  </fieldset>
  <fieldset>
    <legend>Expires</legend>
    <label><input type="radio" name="expires" value="none" checked> Never</label>
    ${EXPIRY_DAY_CHOICES.map((days) => html`<label><input type="radio" name="expires" value="${days}"> In ${days} days (${utcMinute(inDays(days))})</label>`)}
    <label class="with-date"><input type="radio" name="expires" value="date"> On a date:</label>
    <input type="date" name="expiresOn" min="${tomorrow}" aria-label="Expiry date" aria-describedby="expires-hint">
    <p id="expires-hint" class="muted">On a date, the key stops at 00:00 UTC that day. After its expiry a key is refused with 401 KEY_EXPIRED.</p>
  </fieldset>
  <button type="submit">Create key</button>
</form>`;
}

/** What the list says of a key's end: never, a time, or that it has passed. */
function expiryCell(key: KeyListing, now: Date): SafeHtml | string {
  if (key.expiresAt === null) return 'never';
  const at = utcMinute(key.expiresAt).replace(' UTC', '');
  return hasExpired(key.expiresAt, now) ? html`<strong>expired</strong> ${at}` : at;
}

function statusCell(key: KeyListing, now: Date): SafeHtml | string {
  if (key.revokedAt !== null) return `revoked ${day(key.revokedAt)}`;
  if (hasExpired(key.expiresAt, now)) return 'expired';
  const revoke = html`<form method="get" action="/account/keys/${key.id}/revoke"><button type="submit" class="danger" aria-describedby="key-${key.id}">Revoke</button></form>`;
  const name = html`<span id="key-${key.id}" hidden>key ${key.id}</span>`;
  if (key.replacedBy !== null)
    return html`<div class="actions"><span class="state">rotated, replaced by <code>${key.replacedBy}</code>; works until it expires</span> ${revoke}${name}</div>`;
  return html`<div class="actions">active
      <form method="get" action="/account/keys/${key.id}/rotate"><button type="submit" class="secondary" aria-describedby="key-${key.id}">Rotate</button></form>
      ${revoke}${name}</div>`;
}

export function keysTable(keys: readonly KeyListing[], nowIso: string): SafeHtml {
  if (keys.length === 0) return html`<p>No keys yet: create one above.</p>`;
  const minutes = KEY_USE_RESOLUTION_MS / 60_000;
  const now = new Date(nowIso);
  return html`
<table>
  <caption class="muted">Times are UTC. "Last used" is recorded to within ${minutes} minutes and shown by day.</caption>
  <thead><tr><th scope="col">Key</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Expires</th><th scope="col">Status</th></tr></thead>
  <tbody>
  ${keys.map(
    (key) => html`
  <tr>
    <td data-label="Key"><code>${key.id}</code><br><span class="muted">${key.env}, ${key.tail ? html`ends with <code>…${key.tail}</code>` : 'end not recorded'}</span></td>
    <td data-label="Created">${day(key.createdAt)}</td>
    <td data-label="Last used">${key.lastUsedAt ? day(key.lastUsedAt) : 'never'}</td>
    <td data-label="Expires">${expiryCell(key, now)}</td>
    <td data-label="Status">${statusCell(key, now)}</td>
  </tr>`,
  )}
  </tbody>
</table>`;
}

/** The old key's fate under each grace, as the confirmation says it (its own expiry, when earlier, wins). */
export function graceOutcome(key: KeyListing, grace: GraceChoice, now: Date): string {
  const ms = parseGrace(grace);
  if (ms === 0) return 'the old key stops at once';
  const end = earlierEnd(key.expiresAt, new Date(now.getTime() + ms).toISOString())!;
  return `the old key keeps working until ${utcMinute(end)}, then stops`;
}

/** The confirmation step of a rotation: each grace with what it does to the old key; nothing is chosen for the user. */
export function confirmRotatePage(session: AccountSession, key: KeyListing, now: Date): string {
  return layout(
    'Rotate a key',
    html`
<h1>Rotate key ${key.id}?</h1>
<p>A new ${key.env} key replaces <code>${key.id}</code>${key.tail ? html` ending in <code>${key.tail}</code>` : ''}${key.expiresAt ? ` (and keeps its expiry, ${utcMinute(key.expiresAt)})` : ''}. The new key is shown once, on the next page.</p>
<form method="post" action="/account/keys/${key.id}/rotate">
  ${csrfField(session)}
  <input type="hidden" name="confirm" value="yes">
  <fieldset>
    <legend>When does the old key stop working?</legend>
    ${GRACE_CHOICES.map((grace) => html`<label><input type="radio" name="grace" value="${grace}" required> <strong>${GRACE_LABELS[grace]}</strong>: ${graceOutcome(key, grace, now)}.</label>`)}
  </fieldset>
  <p class="muted">Give your services time to switch to the new key: during the grace both keys work, on every server.</p>
  <button type="submit">Rotate</button>
  <a class="button secondary" href="/account">Cancel</a>
</form>`,
  );
}

/** The confirmation step of a revocation: a page of its own, so it works without JavaScript. */
export function confirmRevokePage(session: AccountSession, key: KeyListing): string {
  return layout(
    'Revoke a key',
    html`
<h1>Revoke key ${key.id}?</h1>
<p>The ${key.env} key <code>${key.id}</code>${key.tail ? html` ending in <code>${key.tail}</code>` : ''} will stop working at once, on every server. This cannot be undone.</p>
${confirmForm(session, `/account/keys/${key.id}/revoke`, 'Revoke', '/account')}`,
  );
}
