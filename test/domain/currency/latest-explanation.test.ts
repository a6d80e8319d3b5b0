import { describe, expect, it } from 'vitest';
import { berlinInstant } from '../../../src/domain/calendar/berlin-time';
import { latestExpectedPublication } from '../../../src/domain/calendar/ecb-schedule';
import { explainLatest, memoizedLatestExplanation, nextPublication } from '../../../src/domain/currency/explain-date';

const MINUTE = 60_000;

/** Instants every 13 minutes over a span, plus each Berlin midnight and 16:00 in it and 1 ms either side. */
function instants(fromDay: string, days: number): Date[] {
  const start = berlinInstant(fromDay, 0).getTime();
  const out: number[] = [];
  for (let t = start; t < start + days * 1440 * MINUTE; t += 13 * MINUTE) out.push(t);
  for (let d = 0; d <= days; d++) {
    const day = new Date(Date.UTC(Number(fromDay.slice(0, 4)), Number(fromDay.slice(5, 7)) - 1, Number(fromDay.slice(8, 10)) + d))
      .toISOString()
      .slice(0, 10);
    for (const edge of [berlinInstant(day, 0).getTime(), berlinInstant(day, 16).getTime()]) out.push(edge - 1, edge, edge + 1);
  }
  return out.sort((a, b) => a - b).map((t) => new Date(t));
}

describe('memoizedLatestExplanation', () => {
  it.each([
    // Easter 2024 (Good Friday and Easter Monday are TARGET holidays) and the switch to CEST on 31 March.
    ['2024-03-27', 8],
    // The switch back to CET on 27 October 2024.
    ['2024-10-24', 6],
    // Christmas and New Year 2024/25: 25, 26 December and 1 January are TARGET holidays.
    ['2024-12-22', 13],
  ])('answers as explainLatest and nextPublication do, at every instant from %s for %i days', (from, days) => {
    const memo = memoizedLatestExplanation();
    let checked = 0;
    for (const now of instants(from, days)) {
      // The newest held: the expected one most of the time, one publication late now and then (overdue).
      const expected = latestExpectedPublication(now);
      const newest = now.getUTCMinutes() % 5 === 0 ? latestExpectedPublication(new Date(now.getTime() - 86_400_000 * 2)) : expected;
      expect(memo(newest, now), now.toISOString()).toEqual({
        resolved: explainLatest(newest, now),
        nextPublication: nextPublication(newest, now),
      });
      checked++;
    }
    expect(checked).toBeGreaterThan(days * 100);
  });
});
