import type { AccountSession } from '../services/accounts';
import type { ConnectedAgent } from '../services/oauth/agents';
import type { ConsentRequest } from '../services/oauth/consent';
import { html, type SafeHtml } from './html';
import { csrfField, layout } from './layout';

/** The agents parts of the account page: the consent step of an OAuth authorization, and the connected agents with their revocation. */

/** What an `mcp` token lets an agent do, said the same way on the consent step and in the list. */
const MCP_POWERS =
  'call the MCP tools of this API (convert, rates, find_units, find_currencies, rate_series_summary) as this account: read-only, each conversion charged to its plan and monthly quota like a request with one of its keys. It cannot see or change your keys, webhooks, password or plan.';

export function consentPage(session: AccountSession, request: ConsentRequest, serverEnv: string): string {
  const redirectHost = URL.canParse(request.redirectUri) ? new URL(request.redirectUri).host : request.redirectUri;
  return layout(
    'Allow an agent',
    html`
<h1>Allow <span id="client-name">${request.clientName}</span> to use your account?</h1>
<p>Signed in as <strong>${session.account.email ?? session.account.id}</strong>.</p>
<p>The agent identifies itself as <code id="client-id">${request.clientId}</code>${request.clientUri ? html` (<a href="${request.clientUri}" rel="noreferrer">${request.clientUri}</a>)` : ''}; after your answer it gets it at <strong>${redirectHost}</strong>.</p>
<h2>What it may do</h2>
<p>It may ${MCP_POWERS}</p>
<p>Resource: <code>${request.resource}</code>; scope <code>mcp</code>; environment: <strong>${serverEnv}</strong> (the one this server serves). You can revoke it at any time on your account page, under Connected agents.</p>
<form method="post" action="/account/oauth/${request.uid}">
  ${csrfField(session)}
  <button type="submit" name="decision" value="allow">Allow</button>
  <button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</form>`,
  );
}

function agentRow(session: AccountSession, agent: ConnectedAgent): SafeHtml {
  return html`
  <tr>
    <td data-label="Agent"><strong>${agent.name}</strong><br><code class="muted">${agent.clientId}</code></td>
    <td data-label="May">scope <code>${agent.scope}</code> on <code>${agent.resource}</code></td>
    <td data-label="Connected">${agent.createdAt.slice(0, 10)}${agent.expiresAt ? html`<br><span class="muted">lapses ${agent.expiresAt.slice(0, 10)} unless used</span>` : ''}</td>
    <td data-label="Revoke"><form method="post" action="/account/agents/${agent.id}/revoke">${csrfField(session)}<button type="submit" class="danger">Revoke</button></form></td>
  </tr>`;
}

/** The list: each agent connected with OAuth, what it may do, and a button that revokes it (every token, at once). */
export function agentsSection(session: AccountSession, agents: readonly ConnectedAgent[]): SafeHtml {
  return html`
<section id="agents" aria-labelledby="agents-title">
<h2 id="agents-title">Connected agents</h2>
<p>Agents (such as claude.ai's connectors) that you allowed, through OAuth, to ${MCP_POWERS}</p>
${
  agents.length === 0
    ? html`<p>No agents connected.</p>`
    : html`<table>
  <thead><tr><th>Agent</th><th>May</th><th>Connected</th><th>Revoke</th></tr></thead>
  <tbody>${agents.map((agent) => agentRow(session, agent))}</tbody>
</table>`
}
</section>`;
}
