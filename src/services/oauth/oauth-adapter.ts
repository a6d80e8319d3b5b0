import { createHash } from 'node:crypto';
import type { OAuthRecordStore } from './oauth-records';

/** The SHA-256 (hex) under which an artefact, or the grant it belongs to, is stored: the id itself never is. */
export function recordIdHash(id: string): string {
  return createHash('sha256').update(id).digest('hex');
}

/** Expired artefacts are deleted on a write at most this often per instance, so the table holds live ones. */
export const OAUTH_SWEEP_EVERY_MS = 10 * 60_000;

type Payload = Record<string, unknown> & { jti?: string; grantId?: string; accountId?: string; uid?: string; consumed?: number };

/** oidc-provider's storage interface (its docs' "adapter"), as this project implements it. */
export interface ProviderAdapter {
  upsert(id: string, payload: Payload, expiresIn?: number): Promise<void>;
  find(id: string): Promise<Payload | undefined>;
  findByUserCode(userCode: string): Promise<Payload | undefined>;
  findByUid(uid: string): Promise<Payload | undefined>;
  consume(id: string): Promise<void>;
  destroy(id: string): Promise<void>;
  revokeByGrantId(grantId: string): Promise<void>;
}

/**
 * oidc-provider's adapter over the project's database (one row per artefact, oauth_records). Every
 * artefact is stored under the SHA-256 of its id and without the id in its payload: an access or
 * refresh token, a code, a session cookie is never at rest in plaintext; a lookup hashes the id
 * presented and gives the id back in the payload (`jti`), as the provider expects. A consumed code
 * keeps its row, marked, so a second use is seen as a replay (and the provider revokes its grant).
 * Rows past their expiry are never read, and are deleted by the first write after each sweep period.
 */
export function oauthAdapter(store: OAuthRecordStore, clock: () => Date): (model: string) => ProviderAdapter {
  let sweptAt = Number.NEGATIVE_INFINITY;
  const sweep = async () => {
    const t = clock().getTime();
    if (t - sweptAt < OAUTH_SWEEP_EVERY_MS) return;
    sweptAt = t;
    await store.deleteExpired(new Date(t).toISOString());
  };
  return (model) => {
    const now = () => clock().toISOString();
    const read = async (id: string, found: Promise<string | undefined>): Promise<Payload | undefined> => {
      const payload = await found;
      return payload === undefined ? undefined : { ...(JSON.parse(payload) as Payload), jti: id };
    };
    const write = async (id: string, payload: Payload, expiresIn: number | undefined) => {
      const { jti: _id, ...kept } = payload;
      await sweep();
      await store.upsert({
        model,
        idHash: recordIdHash(id),
        payload: JSON.stringify(kept),
        grantHash: typeof payload.grantId === 'string' && model !== 'Grant' ? recordIdHash(payload.grantId) : null,
        uidHash: typeof payload.uid === 'string' ? recordIdHash(payload.uid) : null,
        accountId: model === 'Grant' && typeof payload.accountId === 'string' ? payload.accountId : null,
        expiresAt: typeof expiresIn === 'number' ? new Date(clock().getTime() + expiresIn * 1000).toISOString() : null,
      });
    };
    return {
      upsert: write,
      find: (id) => read(id, store.find(model, recordIdHash(id), now())),
      // Device codes are not served: no artefact has a user code.
      findByUserCode: async () => undefined,
      findByUid: async (uid) => {
        const payload = await store.findByUid(model, recordIdHash(uid), now());
        return payload === undefined ? undefined : (JSON.parse(payload) as Payload);
      },
      consume: async (id) => {
        const found = await read(id, store.find(model, recordIdHash(id), now()));
        if (!found) return;
        const exp = typeof found['exp'] === 'number' ? found['exp'] - Math.floor(clock().getTime() / 1000) : undefined;
        await write(id, { ...found, consumed: Math.floor(clock().getTime() / 1000) }, exp !== undefined && exp > 0 ? exp : 1);
      },
      destroy: (id) => store.destroy(model, recordIdHash(id)),
      revokeByGrantId: async (grantId) => {
        await store.revokeGrant(recordIdHash(grantId));
      },
    };
  };
}
