import type { AccountSession, Flash } from '../services/accounts';
import { utcMinute } from '../services/accounts';
import type { WebhookDeliveryRecord } from '../services/webhook-store';
import type { WebhookEndpointListing } from '../services/webhooks';
import { html, type SafeHtml } from './html';
import { confirmForm, csrfField, layout } from './layout';

/** The webhook parts of the account page: the add form, the secret shown once, the endpoints with their deliveries, removal. */

/** A new endpoint's signing secret, shown this once. */
export function newWebhookSection(hook: NonNullable<Flash['newWebhook']>): SafeHtml {
  return html`
<section class="new-key" aria-labelledby="new-secret-title">
  <h2 id="new-secret-title">Signing secret of ${hook.id}</h2>
  <p class="error"><strong>Copy it now: it is shown only this once.</strong> Your receiver verifies each event's <code>webhook-signature</code> with it (Standard Webhooks).</p>
  <code id="new-secret">${hook.secret}</code>
  <button type="button" class="secondary" data-copy="new-secret" hidden>Copy</button>
</section>`;
}

function deliveryLine(delivery: WebhookDeliveryRecord): SafeHtml {
  const outcome = {
    delivered: () =>
      html`<span class="ok">delivered</span>${delivery.deliveredAt && utcMinute(delivery.deliveredAt) !== utcMinute(delivery.createdAt) ? ` ${utcMinute(delivery.deliveredAt)}` : ''}`,
    pending: () =>
      html`pending${delivery.attempts > 0 ? `, attempt ${delivery.attempts} failed` : ''}${delivery.nextAttemptAt ? `, next try ${utcMinute(delivery.nextAttemptAt)}` : ''}`,
    failed: () => html`<strong class="failed">failed</strong> after ${delivery.attempts} attempt${delivery.attempts === 1 ? '' : 's'}`,
  }[delivery.status]();
  const last =
    delivery.status !== 'delivered' && (delivery.lastStatus !== null || delivery.lastError !== null)
      ? ` (last: ${delivery.lastStatus ?? delivery.lastError})`
      : '';
  return html`<li><code>${delivery.type}</code>, ${utcMinute(delivery.createdAt)}: ${outcome}${last}</li>`;
}

function endpointRow(endpoint: WebhookEndpointListing): SafeHtml {
  const summary = `${endpoint.pending} pending, ${endpoint.failed} failed`;
  return html`
  <tr>
    <td data-label="Endpoint"><code>${endpoint.url}</code><br><span class="muted">${endpoint.id}<br>added ${endpoint.createdAt.slice(0, 10)}</span></td>
    <td data-label="Last deliveries">${endpoint.deliveries.length === 0 ? html`<span class="muted">no events yet</span>` : html`<span class="muted">${summary}</span><ul class="deliveries">${endpoint.deliveries.map(deliveryLine)}</ul>`}</td>
    <td data-label="Remove"><form method="get" action="/account/webhooks/${endpoint.id}/remove"><button type="submit" class="danger" aria-describedby="hook-${endpoint.id}">Remove</button></form><span id="hook-${endpoint.id}" hidden>endpoint ${endpoint.url}</span></td>
  </tr>`;
}

/** The section: what is sent, the add form, and the endpoints. */
export function webhooksSection(session: AccountSession, endpoints: readonly WebhookEndpointListing[]): SafeHtml {
  return html`
<section id="webhooks" aria-labelledby="webhooks-title">
<h2 id="webhooks-title">Webhooks</h2>
<p>Get alerts as signed <a href="https://www.standardwebhooks.com/">Standard Webhooks</a>: <code>quota.threshold</code> at 80 % and 100 % of the monthly quota, <code>key.expiring</code> 7 days and 1 day before a key ends, and <code>key.expired</code>. Each event is sent once per endpoint and retried for up to a day.</p>
<form method="post" action="/account/webhooks">
  ${csrfField(session)}
  <label for="webhook-url">Endpoint URL</label>
  <input id="webhook-url" name="url" type="url" required maxlength="2000" placeholder="https://example.com/webhooks/measurement">
  <button type="submit">Add endpoint</button>
</form>
${
  endpoints.length === 0
    ? html`<p>No endpoints yet.</p>`
    : html`
<table class="webhooks">
  <thead><tr><th scope="col">Endpoint</th><th scope="col">Last deliveries</th><th scope="col"><span class="visually-hidden">Remove</span></th></tr></thead>
  <tbody>${endpoints.map(endpointRow)}
  </tbody>
</table>`
}
</section>`;
}

/** The confirmation step of removing an endpoint. */
export function confirmRemoveWebhookPage(session: AccountSession, endpoint: WebhookEndpointListing): string {
  return layout(
    'Remove a webhook endpoint',
    html`
<h1>Remove webhook endpoint?</h1>
<p><code>${endpoint.url}</code> (${endpoint.id}) will get no more events, and its ${endpoint.pending} pending deliveries are dropped. This cannot be undone; adding the URL again gives it a new secret.</p>
${confirmForm(session, `/account/webhooks/${endpoint.id}/remove`, 'Remove', '/account#webhooks')}`,
  );
}
