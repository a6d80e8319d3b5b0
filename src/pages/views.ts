import type { KeyListing } from '../services/account-store';
import type { KeyEnv } from '../domain/keys';
import { MIN_PASSWORD_LENGTH } from '../domain/passwords';
import type { AccountOverview, AccountSession, Flash } from '../services/accounts';
import { KEY_USE_RESOLUTION_MS } from '../services/key-use';
import { FAVICON_PATH, SCRIPT_PATH, STYLESHEET_PATH } from './assets';
import { html, type SafeHtml } from './html';

/** The account page's views: plain HTML forms that work without JavaScript. */
function layout(title: string, main: SafeHtml, script = false): string {
  return `<!doctype html>${html`
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Measurement API</title>
<link rel="icon" href="${FAVICON_PATH}" type="image/svg+xml">
<link rel="stylesheet" href="${STYLESHEET_PATH}">
${script ? html`<script src="${SCRIPT_PATH}" defer></script>` : ''}
</head>
<body>
<main>
${main}
</main>
</body>
</html>`.text}\n`;
}

const csrfField = (session: AccountSession) => html`<input type="hidden" name="csrf" value="${session.csrf}">`;
const day = (iso: string | null) => (iso === null ? '' : iso.slice(0, 10));
const message = (text: string | undefined, kind: 'error' | 'notice') => (text ? html`<p class="${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${text}</p>` : '');

export interface SignInView {
  signupOpen: boolean;
  email?: string;
  error?: string;
  notice?: string;
}

/** One form, two buttons: "Log in" and "Sign up" submit the same Email and Password fields. */
export function signInPage(view: SignInView): string {
  return layout('Your account', html`
<h1>Measurement API account</h1>
${message(view.error, 'error')}${message(view.notice, 'notice')}
<form method="post" action="/account/login">
  <label for="email">Email</label>
  <input id="email" name="email" type="email" autocomplete="username" required maxlength="254" value="${view.email ?? ''}">
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required maxlength="256" aria-describedby="password-hint">
  <p id="password-hint" class="muted">${view.signupOpen ? `New here? Choose a password of at least ${MIN_PASSWORD_LENGTH} characters and press Sign up.` : 'Sign-up is closed on this server: the operator creates accounts.'}</p>
  <button type="submit">Log in</button>
  ${view.signupOpen ? html`<button type="submit" class="secondary" formaction="/account/signup">Sign up</button>` : ''}
</form>`);
}

export function dashboardPage(session: AccountSession, overview: AccountOverview, flash: Flash | undefined): string {
  const { usage } = overview;
  const other: KeyEnv = overview.serverEnv === 'live' ? 'test' : 'live';
  return layout('Your account', html`
<header>
  <h1>Your account</h1>
  <form method="post" action="/account/logout">${csrfField(session)}<button type="submit" class="secondary">Log out</button></form>
</header>
${flash ? message(flash.notice, 'notice') : ''}
${flash?.newKey ? newKeySection(flash.newKey) : ''}
<p>Signed in as <strong>${session.account.email ?? session.account.id}</strong>.</p>
<h2>Plan and usage</h2>
<p>Plan: <strong>${overview.plan}</strong>. To change plans, ask whoever runs this server.</p>
<p id="usage">${usage.used.toLocaleString('en-US')} of ${usage.limit.toLocaleString('en-US')} conversions used this month (${usage.month}); resets on ${usage.resetsAt.slice(0, 10)} at 00:00 UTC.</p>
<progress aria-labelledby="usage" max="${usage.limit}" value="${Math.min(usage.used, usage.limit)}">${Math.floor((usage.used / usage.limit) * 100)}%</progress>
<h2>Create a key</h2>
<form method="post" action="/account/keys">
  ${csrfField(session)}
  <fieldset>
    <legend>Environment</legend>
    <label><input type="radio" name="env" value="${overview.serverEnv}" checked> ${overview.serverEnv} (msr_${overview.serverEnv}_…, accepted by this server)</label>
    <label><input type="radio" name="env" value="${other}"> ${other} (msr_${other}_…, will not work on this server, which accepts only ${overview.serverEnv} keys)</label>
  </fieldset>
  <button type="submit">Create key</button>
</form>
<h2>Your keys</h2>
${keysTable(session, overview.keys)}`, flash?.newKey !== undefined);
}

function newKeySection(key: NonNullable<Flash['newKey']>): SafeHtml {
  return html`
<section class="new-key" aria-labelledby="new-key-title">
  <h2 id="new-key-title">Your new ${key.env} key</h2>
  <p class="error"><strong>Copy it now and store it safely: it is shown only this once.</strong> Only a hash of it is kept, so nobody can show it to you again.</p>
  <code id="new-key">${key.key}</code>
  <button type="button" class="secondary" data-copy="new-key" hidden>Copy</button>
</section>`;
}

function keysTable(session: AccountSession, keys: readonly KeyListing[]): SafeHtml {
  if (keys.length === 0) return html`<p>No keys yet: create one above.</p>`;
  const minutes = KEY_USE_RESOLUTION_MS / 60_000;
  return html`
<table>
  <caption class="muted">"Last used" is recorded to within ${minutes} minutes and shown by day (UTC).</caption>
  <thead><tr><th scope="col">Key</th><th scope="col">Environment</th><th scope="col">Ends with</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Status</th></tr></thead>
  <tbody>
  ${keys.map((key) => html`
  <tr>
    <td data-label="Key"><code>${key.id}</code></td>
    <td data-label="Environment">${key.env}</td>
    <td data-label="Ends with"><code>${key.tail ? `…${key.tail}` : 'not recorded'}</code></td>
    <td data-label="Created">${day(key.createdAt)}</td>
    <td data-label="Last used">${key.lastUsedAt ? day(key.lastUsedAt) : 'never'}</td>
    <td data-label="Status">${key.revokedAt === null ? html`<div class="actions">active
      <form method="post" action="/account/keys/${key.id}/rotate">${csrfField(session)}<button type="submit" class="secondary" aria-describedby="key-${key.id}">Rotate</button></form>
      <form method="get" action="/account/keys/${key.id}/revoke"><button type="submit" class="danger" aria-describedby="key-${key.id}">Revoke</button></form>
      <span id="key-${key.id}" hidden>key ${key.id}</span></div>` : `revoked ${day(key.revokedAt)}`}</td>
  </tr>`)}
  </tbody>
</table>`;
}

/** The confirmation step of a revocation: a page of its own, so it works without JavaScript. */
export function confirmRevokePage(session: AccountSession, key: KeyListing): string {
  return layout('Revoke a key', html`
<h1>Revoke key ${key.id}?</h1>
<p>The ${key.env} key <code>${key.id}</code>${key.tail ? html` ending in <code>${key.tail}</code>` : ''} will stop working at once, on every server. This cannot be undone.</p>
<form method="post" action="/account/keys/${key.id}/revoke">
  ${csrfField(session)}
  <input type="hidden" name="confirm" value="yes">
  <button type="submit" class="danger">Revoke</button>
  <a class="button secondary" href="/account">Cancel</a>
</form>`);
}

export function errorPage(title: string, text: string): string {
  return layout(title, html`
<h1>${title}</h1>
${message(text, 'error')}
<p><a href="/account">Back to your account</a></p>`);
}
