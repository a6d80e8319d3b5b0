import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RefreshScheduler } from '../../../src/data/rates/scheduler';

const MINUTE = 60_000;

beforeEach(() => {
  // Tuesday 2026-04-14, 15:00 Berlin (CEST): the day's publication is an hour away.
  vi.useFakeTimers({ now: new Date('2026-04-14T13:00:00Z') });
});
afterEach(() => {
  vi.useRealTimers();
});

/** A scheduler whose refresh "finds" the publication of `publishedOn` from the `appearsOnCall`-th call on. */
function harness(appearsOnCall: number) {
  const calls: string[] = [];
  let held = '2026-04-13';
  const scheduler = new RefreshScheduler({
    clock: () => new Date(),
    newest: () => held,
    random: () => 0.5,
    refresh: async () => {
      calls.push(new Date().toISOString());
      if (calls.length >= appearsOnCall) held = new Date().toISOString().slice(0, 10);
      if (calls.length < appearsOnCall) throw new Error('not published yet');
    },
  });
  return { calls, scheduler };
}

describe('the refresh schedule', () => {
  it('is quiet before 16:00 Berlin, polls every ~5 minutes from then until the publication appears, then stays quiet', async () => {
    const { calls, scheduler } = harness(3);
    scheduler.start();
    await vi.advanceTimersByTimeAsync(59 * MINUTE);
    expect(calls).toEqual([]);

    await vi.advanceTimersByTimeAsync(2 * MINUTE); // 16:01: the first check, 15 s of jitter after 16:00
    expect(calls).toEqual(['2026-04-14T14:00:15.000Z']);
    await vi.advanceTimersByTimeAsync(10 * MINUTE); // a failure changes nothing: polling goes on
    expect(calls).toEqual(['2026-04-14T14:00:15.000Z', '2026-04-14T14:05:15.000Z', '2026-04-14T14:10:15.000Z']);

    await vi.advanceTimersByTimeAsync(20 * 60 * MINUTE); // until 12:11 the next day: nothing is due
    expect(calls).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(4 * 60 * MINUTE); // past 16:00 on Wednesday: due again
    expect(calls.at(-1)).toBe('2026-04-15T14:00:15.000Z');
    scheduler.stop();
  });

  it('skips the Easter weekend: from Thursday 16:00 the next poll is Tuesday 16:00', async () => {
    vi.setSystemTime(new Date('2026-04-02T14:30:00Z')); // Thursday before Good Friday, 16:30 Berlin
    const calls: string[] = [];
    let held = '2026-04-02';
    const scheduler = new RefreshScheduler({
      clock: () => new Date(),
      newest: () => held,
      random: () => 0,
      refresh: async () => {
        calls.push(new Date().toISOString());
        held = new Date().toISOString().slice(0, 10);
      },
    });
    scheduler.start();
    await vi.advanceTimersByTimeAsync(5 * 24 * 60 * MINUTE);
    scheduler.stop();
    expect(calls).toEqual(['2026-04-07T14:00:00.000Z']);
  });

  it('across the switch to summer time: Friday 16:00 CET is 15:00 UTC, Monday 16:00 CEST is 14:00 UTC', async () => {
    vi.setSystemTime(new Date('2026-03-27T12:00:00Z')); // Friday before the last Sunday of March
    const calls: string[] = [];
    let held = '2026-03-26';
    const scheduler = new RefreshScheduler({
      clock: () => new Date(),
      newest: () => held,
      random: () => 0,
      refresh: async () => {
        calls.push(new Date().toISOString());
        held = new Date(Date.now() + 7_200_000).toISOString().slice(0, 10);
      },
    });
    scheduler.start();
    await vi.advanceTimersByTimeAsync(4 * 24 * 60 * MINUTE);
    scheduler.stop();
    expect(calls).toEqual(['2026-03-27T15:00:00.000Z', '2026-03-30T14:00:00.000Z']);
  });

  it('uses unref’d timers and stop() clears them', async () => {
    const { scheduler } = harness(1);
    scheduler.start();
    expect(vi.getTimerCount()).toBe(1);
    scheduler.stop();
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(48 * 60 * MINUTE);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('with nothing held, polls at once every ~5 minutes (a cold start without network keeps trying)', async () => {
    const calls: number[] = [];
    const scheduler = new RefreshScheduler({
      clock: () => new Date(),
      newest: () => undefined,
      random: () => 0.5,
      refresh: async () => calls.push(Date.now()),
    });
    scheduler.start();
    await vi.advanceTimersByTimeAsync(16 * MINUTE);
    scheduler.stop();
    expect(calls).toHaveLength(3);
  });
});
