import { ApiError } from '../domain/errors';
import type { SecretBox } from '../domain/secret-box';
import { addressRefusal, parseWebhookUrl, refusedAddresses, type WebhookUrlPolicy } from '../domain/webhook-urls';
import { newEndpointId, newWebhookSecret } from '../domain/webhooks';
import type { WebhookDeliveryRecord, WebhookStore } from './webhook-store';

/**
 * An account's webhook endpoints (issue: alerts as signed Standard Webhooks): add one (its
 * `whsec_…` signing secret is returned once and kept only sealed), list them with their latest
 * deliveries and failures, remove one. The CLI and the account page both call these.
 */
export interface WebhookEndpoint {
  id: string;
  url: string;
  createdAt: string;
}

export interface WebhookEndpointListing extends WebhookEndpoint {
  /** The latest deliveries to this endpoint, newest first (at most LATEST_DELIVERIES). */
  deliveries: WebhookDeliveryRecord[];
  /** Deliveries given up on after a day of retries. */
  failed: number;
  /** Deliveries not yet made (waiting for their first attempt or a retry). */
  pending: number;
}

export interface Webhooks {
  /**
   * Adds an endpoint after checking its URL (INVALID_REQUEST with param `url`, see webhook-urls.ts);
   * the secret is in the answer only. NOT_FOUND for an unknown account.
   */
  add(input: { accountId: string; url: string }): Promise<{ endpoint: WebhookEndpoint; secret: string }>;
  /** The account's endpoints, oldest first, each with its latest deliveries and failures. */
  list(accountId: string): Promise<WebhookEndpointListing[]>;
  /** Removes the account's endpoint and its deliveries; NOT_FOUND when the account has no endpoint with this id. */
  remove(accountId: string, endpointId: string): Promise<void>;
}

export interface WebhookDependencies {
  store: WebhookStore;
  /** Seals signing secrets at rest; called when one is first needed (a production server without its key refuses then). */
  secrets: () => SecretBox;
  /** The addresses a host name resolves to (an IP literal: itself). */
  resolveHost: (host: string) => Promise<string[]>;
  policy: WebhookUrlPolicy;
  clock: () => Date;
}

/** How many deliveries a listing shows per endpoint. */
export const LATEST_DELIVERIES = 10;
/** Endpoints an account may have. */
export const MAX_ENDPOINTS = 10;

export function createWebhooks({ store, secrets, resolveHost, policy, clock }: WebhookDependencies): Webhooks {
  return {
    async add({ accountId, url: text }) {
      const url = parseWebhookUrl(text, policy);
      if (policy.publicAddressesOnly) {
        const addresses = await resolveHost(url.hostname).catch(() => []);
        const refused = refusedAddresses(addresses, policy);
        if (addresses.length === 0 || refused.length > 0) throw addressRefusal(url, addresses, refused);
      }
      if ((await store.listEndpoints(accountId)).length >= MAX_ENDPOINTS) {
        throw new ApiError('INVALID_REQUEST', `An account has at most ${MAX_ENDPOINTS} webhook endpoints; remove one first.`, {
          param: 'url',
        });
      }
      const endpoint = { id: newEndpointId(), url: url.href, createdAt: clock().toISOString() };
      const secret = newWebhookSecret();
      await store.addEndpoint({ ...endpoint, accountId }, secrets().seal(secret, endpoint.id));
      return { endpoint, secret };
    },
    async list(accountId) {
      const endpoints = await store.listEndpoints(accountId);
      const recent = await store.recentDeliveries(
        endpoints.map((endpoint) => endpoint.id),
        LATEST_DELIVERIES,
      );
      return endpoints.map(({ id, url, createdAt }) => ({
        id,
        url,
        createdAt,
        ...(recent.get(id) ?? { deliveries: [], failed: 0, pending: 0 }),
      }));
    },
    async remove(accountId, endpointId) {
      if (!(await store.removeEndpoint(accountId, endpointId))) {
        throw new ApiError('NOT_FOUND', `No webhook endpoint of this account has the id '${endpointId.slice(0, 60)}'.`, { param: 'id' });
      }
    },
  };
}
