import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mapDatabaseFaults } from '../../src/data/database-errors';
import type { AccountStore } from '../../src/services/account-store';

/** A store of one method whose calls settle when the test says so. */
function controlledStore() {
  const calls: { resolve(value: number): void; reject(error: unknown): void }[] = [];
  const store = {
    keysRevision: () =>
      new Promise<number>((resolve, reject) => {
        calls.push({ resolve, reject });
      }),
    close: async () => undefined,
  } as unknown as AccountStore;
  return { store, calls };
}

const reset = () => Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });

describe('the database reachability the fault mapper reports (one line each way)', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const run = async (steps: readonly (readonly [at: number, action: 'start' | 'ok' | 'fail', call: number])[]) => {
    const { store, calls } = controlledStore();
    const changes: boolean[] = [];
    const guarded = mapDatabaseFaults(store, 'postgres', { onChange: (reachable) => changes.push(reachable) });
    const settled: Promise<unknown>[] = [];
    for (const [at, action, call] of steps) {
      vi.setSystemTime(at);
      if (action === 'start') settled.push(guarded.keysRevision().catch(() => undefined));
      else if (action === 'ok') calls[call]!.resolve(1);
      else calls[call]!.reject(reset());
      await Promise.resolve();
      await Promise.resolve();
    }
    await Promise.all(settled);
    return changes;
  };

  it.each([
    [
      'a failure, then a success',
      [
        [10, 'start', 0],
        [20, 'fail', 0],
        [30, 'start', 1],
        [40, 'ok', 1],
      ],
      [false, true],
    ],
    [
      'a failure of a call started after the last success',
      [
        [10, 'start', 0],
        [20, 'ok', 0],
        [30, 'start', 1],
        [40, 'fail', 1],
      ],
      [false],
    ],
    // The outage's end: a call held since before the database answered again fails late (its
    // deadline) and must not report a second outage.
    [
      'a late failure of a call started before the last success',
      [
        [10, 'start', 0],
        [20, 'start', 1],
        [30, 'fail', 1],
        [40, 'start', 2],
        [50, 'ok', 2],
        [60, 'fail', 0],
      ],
      [false, true],
    ],
    [
      'successes only',
      [
        [10, 'start', 0],
        [20, 'ok', 0],
      ],
      [],
    ],
  ] as const)('%s', async (_, steps, expected) => {
    expect(await run(steps)).toEqual(expected);
  });
});
