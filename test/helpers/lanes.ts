import type { PlanId } from '../../src/domain/plans';
import type { RawAnswer } from './http';
import { createTwinApps, type TwinRequest } from './twin-apps';

/**
 * Transitional names for test/http/graphql-executor-parity.test.ts, which still imports them:
 * createTwinApps (./twin-apps) with its twins named `fast` (the direct app) and `yoga` (the
 * reference app). Delete this file once that suite imports ./twin-apps.
 */
export type LaneRequest = TwinRequest;

export interface TwinKeys {
  template: string[];
  fast: string[];
  yoga: string[];
}

export interface LanePair {
  twinKeys(plan: PlanId, used?: number): Promise<{ fast: string; yoga: string }>;
  expectSameAnswer(request: LaneRequest, keys: TwinKeys): Promise<void>;
  sameAnswer(request: LaneRequest, keys: TwinKeys): Promise<RawAnswer>;
  close(): Promise<void>;
}

export async function createLanePair(backend: 'sqlite' | 'postgres'): Promise<LanePair> {
  const twins = await createTwinApps(backend);
  const keysOf = (keys: TwinKeys) => ({ template: keys.template, direct: keys.fast, reference: keys.yoga });
  return {
    async twinKeys(plan, used) {
      const keys = await twins.twinKeys(plan, used);
      return { fast: keys.direct, yoga: keys.reference };
    },
    expectSameAnswer: (request, keys) => twins.expectSameAnswer(request, keysOf(keys)),
    sameAnswer: (request, keys) => twins.sameAnswer(request, keysOf(keys)),
    close: () => twins.close(),
  };
}
