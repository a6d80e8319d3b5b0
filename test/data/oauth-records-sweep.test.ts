import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { OAUTH_SWEEP_EVERY_MS, oauthAdapter } from '../../src/services/oauth/oauth-adapter';
import type { AccountStore } from '../../src/services/account-store';
import { BACKENDS, type BackendInstance } from './backends';

/**
 * The authorization server's expired artefacts do not pile up: a write deletes every row past its
 * expiry, at most once per sweep period, on each database. A clock the test moves.
 */
for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(backend.title('expired OAuth artefacts are swept'), () => {
    let instance: BackendInstance;
    let store: AccountStore;
    let now = new Date('2026-03-15T12:00:00.000Z');
    const rows = async () => (await instance.query<{ n: number | string }>('SELECT COUNT(*) AS n FROM oauth_records'))[0]!.n;

    beforeAll(async () => {
      instance = await backend.create();
      store = instance.open();
    });
    afterEach(() => instance.reset());
    afterAll(async () => {
      await store?.close();
      await instance?.destroy();
    });

    it('a write after the period deletes the rows that expired; one within it does not look; live rows stay', async () => {
      const adapter = oauthAdapter(store.oauth, () => now);
      await adapter('AccessToken').upsert('short-1', { grantId: 'g1' }, 60);
      await adapter('AccessToken').upsert('short-2', { grantId: 'g1' }, 60);
      await adapter('RefreshToken').upsert('long', { grantId: 'g1' }, 86_400);
      expect(Number(await rows())).toBe(3);

      // Past the short tokens' expiry, but within the sweep period of the first write: nothing deleted.
      now = new Date(now.getTime() + 120_000);
      await adapter('AccessToken').upsert('short-3', { grantId: 'g1' }, 60);
      expect(Number(await rows())).toBe(4);
      expect(await adapter('AccessToken').find('short-1')).toBeUndefined();

      now = new Date(now.getTime() + OAUTH_SWEEP_EVERY_MS);
      await adapter('Session').upsert('session', { uid: 'u1' }, 3_600);
      expect(Number(await rows())).toBe(2);
      expect(await adapter('RefreshToken').find('long')).toMatchObject({ jti: 'long', grantId: 'g1' });
      expect(await adapter('Session').find('session')).toMatchObject({ jti: 'session' });
    });
  });
}
