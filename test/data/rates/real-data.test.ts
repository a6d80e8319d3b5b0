import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../../src/domain/calendar/berlin-time';
import { isTargetBusinessDay } from '../../../src/domain/calendar/target-calendar';
import { parseEcbFile } from '../../../src/domain/ecb';
import type { RatesService } from '../../../src/services/currency/rates';
import { tempRates, type TempRates } from './helpers';
import { sharedDataPresent } from '../../helpers/shared-data';

// The real ECB files live outside the project (see ../shared/ecb/README.md); they are never copied in.
const DIR = resolve(process.cwd(), '../shared/ecb');
const PRESENT = sharedDataPresent(DIR);
if (!PRESENT) console.warn(`real ECB data rates tests skipped: ${DIR} not found`);

/** The day after the newest real publication (2026-07-06), noon in Berlin. */
const clock = () => new Date('2026-07-07T10:00:00Z');

describe.skipIf(!PRESENT)(`the rates service on the real ECB files in ${DIR}`, () => {
  let t: TempRates;
  let rates: RatesService;
  beforeAll(() => {
    t = tempRates();
    rates = t.service({ clock });
  });
  afterAll(() => t.cleanup());

  it('imports eurofxref-hist.zip: 6983 publications, weekends and Easter resolved from the stored days', async () => {
    const started = performance.now();
    const report = await rates.importFile(join(DIR, 'eurofxref-hist.zip'));
    console.info(`imported eurofxref-hist.zip (6983 publications) into the SQLite cache in ${(performance.now() - started).toFixed(0)} ms`);
    expect(report).toMatchObject({ publications: 6983, added: 6983, replaced: 0, newest: '2026-04-13' });
    expect(rates.resolveDate('2024-03-30')).toBe('2024-03-28'); // Easter Saturday → Maundy Thursday
    expect(rates.resolveDate('1999-01-03')).toBeUndefined();
    expect(rates.knownCurrencies().size).toBe(42); // 41 codes ever quoted, plus EUR
    const [first, christmas] = await rates.loadPublications(['1999-01-04', '2008-12-31']);
    expect(first?.rates).toMatchObject({ USD: '1.1789', JPY: '133.73', CYP: '0.58231' });
    expect(christmas?.rates).toMatchObject({ USD: '1.3917', GBP: '0.9525' });
  });

  it('then eurofxref-daily.xml adds 2026-07-06', async () => {
    expect(await rates.importFile(join(DIR, 'eurofxref-daily.xml'))).toMatchObject({
      publications: 1,
      added: 1,
      replaced: 0,
      newest: '2026-07-06',
    });
    expect(rates.latest()?.date).toBe('2026-07-06');
    expect(Object.keys(rates.latest()!.rates)).toHaveLength(29);
  });

  it('re-importing the history CSV changes nothing (equal as decimals keeps the stored strings)', async () => {
    expect(await rates.importFile(join(DIR, 'eurofxref-hist.csv'))).toMatchObject({ added: 0, replaced: 0, newest: '2026-07-06' });
  });

  it('a restart on the same cache serves the latest at once', async () => {
    const restarted = t.service({ clock });
    await restarted.start();
    expect(restarted.latest()?.date).toBe('2026-07-06');
    expect(restarted.resolveDate('2026-07-05')).toBe('2026-04-13');
  });

  it('the TARGET calendar matches the ECB’s publication days exactly from 2002 on', () => {
    const published = new Set(parseEcbFile(readFileSync(join(DIR, 'eurofxref-hist.zip'))).map((pub) => pub.date));
    const mismatches: string[] = [];
    for (let day = '2002-01-01'; day <= '2026-04-13'; day = addDays(day, 1)) {
      if (isTargetBusinessDay(day) !== published.has(day)) mismatches.push(day);
    }
    expect(mismatches).toEqual([]);
  });
});
