import { describe, expect, it } from 'vitest';
import { SLICE_MS, yieldWhenSpent } from '../../src/services/work-slices';

const busy = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end);
};

/** Counts the turns of the event loop while `work` runs: a setImmediate that re-arms itself. */
async function turnsDuring(work: () => Promise<void>): Promise<number> {
  let turns = 0;
  let running = true;
  const tick = () => {
    if (!running) return;
    turns += 1;
    setImmediate(tick);
  };
  setImmediate(tick);
  await work();
  running = false;
  return turns;
}

describe('work slices: synchronous work waits for a later turn once a slice is spent', () => {
  it(`lets the loop turn between pieces of ${SLICE_MS} ms or more`, async () => {
    const turns = await turnsDuring(async () => {
      for (let i = 0; i < 40; i += 1) {
        const turn = yieldWhenSpent();
        if (turn !== undefined) await turn;
        busy(1);
      }
    });
    // 40 ms of work in slices of about 2 ms: about 20 turns; without the slices, none.
    expect(turns).toBeGreaterThanOrEqual(10);
  });

  it('does not wait while the slice lasts: cheap work stays in one turn', async () => {
    let attempts = 0;
    const turns = await turnsDuring(async () => {
      // A loaded machine may deschedule the process mid-loop, and a pause longer than the slice
      // spends it: a try counts only when the loop itself ran well inside the slice.
      let judged = 0;
      for (; attempts < 20 && judged === 0; attempts += 1) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        const started = performance.now();
        let waits = 0;
        for (let i = 0; i < 100; i += 1) if (yieldWhenSpent() !== undefined) waits += 1;
        if (performance.now() - started >= SLICE_MS / 2) continue;
        expect(waits).toBe(0);
        judged += 1;
      }
      expect(judged).toBe(1);
    });
    // One turn per try's wait for the loop to turn, and none inside a judged try.
    expect(turns).toBeLessThanOrEqual(attempts + 1);
  });

  it('resumes callers that waited together one per turn, in the order they came', async () => {
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(yieldWhenSpent()).toBeUndefined();
    busy(SLICE_MS + 1);
    const order: number[] = [];
    const first = yieldWhenSpent()!.then(() => order.push(1));
    const second = yieldWhenSpent()!.then(() => order.push(2));
    await first;
    expect(order).toEqual([1]);
    await second;
    expect(order).toEqual([1, 2]);
  });
});

describe('work slices: callers woken together take turns', () => {
  it('lets one caller of each turn work when many waited for the same slice', async () => {
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(yieldWhenSpent()).toBeUndefined();
    busy(SLICE_MS + 1);
    let turns = 0;
    let running = true;
    const tick = () => {
      if (!running) return;
      turns += 1;
      setImmediate(tick);
    };
    setImmediate(tick);
    // Ten fields of one document, each waiting before its 3 ms of work: one per turn, never all in one.
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        const turn = yieldWhenSpent();
        if (turn !== undefined) await turn;
        busy(SLICE_MS + 1);
      }),
    );
    running = false;
    expect(turns).toBeGreaterThanOrEqual(9);
  });
});
