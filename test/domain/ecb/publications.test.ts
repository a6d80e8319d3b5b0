import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RateTable, samePublication, type Publication } from '../../../src/domain/ecb';

const pub = (date: string, rates: Record<string, string> = { USD: '1.1' }): Publication => ({ date, rates });

// Thursday, Friday (Good Friday has no publication in real data, it is just a gap here), Tuesday.
const TABLE = RateTable.from([
  pub('2024-04-02', { USD: '1.08' }),
  pub('2024-03-27', { USD: '1.07', ISK: '150.20' }),
  pub('2024-03-28', { USD: '1.079' }),
]);

describe('RateTable', () => {
  it('sorts publications by date and exposes the newest as latest', () => {
    expect(TABLE.dates()).toEqual(['2024-03-27', '2024-03-28', '2024-04-02']);
    expect(TABLE.size).toBe(3);
    expect(TABLE.latest?.date).toBe('2024-04-02');
  });

  it('has no latest publication when empty', () => {
    const empty = RateTable.from([]);
    expect(empty.latest).toBeUndefined();
    expect(empty.size).toBe(0);
    expect(empty.resolve('2024-01-01')).toBeUndefined();
    expect([...empty.knownCurrencies()]).toEqual(['EUR']);
  });

  it('gets a publication only on its exact day', () => {
    expect(TABLE.get('2024-03-28')?.rates.USD).toBe('1.079');
    expect(TABLE.get('2024-03-29')).toBeUndefined();
  });

  it.each([
    ['2024-03-26', undefined],
    ['2024-03-27', '2024-03-27'],
    ['2024-03-28', '2024-03-28'],
    ['2024-03-29', '2024-03-28'],
    ['2024-03-30', '2024-03-28'],
    ['2024-04-01', '2024-03-28'],
    ['2024-04-02', '2024-04-02'],
    ['2099-01-01', '2024-04-02'],
  ])('resolves %s to the latest publication on or before it (%s)', (date, expected) => {
    expect(TABLE.resolve(date)?.date).toBe(expected);
  });

  it.each(['2024-3-29', '29.03.2024', '', '2024-03-29T00:00:00Z'])('throws a TypeError when resolving the malformed date %j', (date) => {
    expect(() => TABLE.resolve(date)).toThrow(TypeError);
  });

  it('resolves like a linear scan for any set of dates', () => {
    const day = fc.integer({ min: 0, max: 400 }).map((n) => new Date(Date.UTC(2024, 0, 1 + n)).toISOString().slice(0, 10));
    fc.assert(
      fc.property(fc.uniqueArray(day, { maxLength: 40 }), day, (dates, query) => {
        const table = RateTable.from(dates.map((d) => pub(d)));
        const expected = dates
          .filter((d) => d <= query)
          .sort()
          .at(-1);
        expect(table.resolve(query)?.date).toBe(expected);
      }),
    );
  });

  it('knows every currency ever quoted, plus EUR', () => {
    expect([...TABLE.knownCurrencies()].sort()).toEqual(['EUR', 'ISK', 'USD']);
  });

  it('throws a TypeError when built with a repeated or malformed date', () => {
    expect(() => RateTable.from([pub('2024-03-27'), pub('2024-03-27')])).toThrow(/duplicate date 2024-03-27/);
    expect(() => RateTable.from([pub('27/03/2024')])).toThrow(TypeError);
  });

  it('cannot be changed through what it returns', () => {
    const input = [pub('2024-03-27', { USD: '1.07' })];
    const table = RateTable.from(input);
    (input[0]!.rates as Record<string, string>).USD = '9';
    expect(table.get('2024-03-27')?.rates.USD).toBe('1.07');
    expect(Object.isFrozen(table.dates())).toBe(true);
    expect(Object.isFrozen(table.latest?.rates)).toBe(true);
  });
});

describe('RateTable.merge', () => {
  it('adds new days in a new table and leaves the old one as it was', () => {
    const next = TABLE.merge([pub('2024-04-03'), pub('2024-03-26')]);
    expect(next.dates()).toEqual(['2024-03-26', '2024-03-27', '2024-03-28', '2024-04-02', '2024-04-03']);
    expect(TABLE.size).toBe(3);
  });

  it('keeps the stored strings when a day comes again with equal decimals', () => {
    const next = TABLE.merge([pub('2024-03-27', { USD: '1.0700', ISK: '150.2' })]);
    expect(next).toBe(TABLE);
    expect(next.get('2024-03-27')?.rates).toEqual({ USD: '1.07', ISK: '150.20' });
  });

  it('replaces a stored day with a corrected one', () => {
    const next = TABLE.merge([pub('2024-03-27', { USD: '1.0701', ISK: '150.20' })]);
    expect(next.get('2024-03-27')?.rates.USD).toBe('1.0701');
    expect(TABLE.get('2024-03-27')?.rates.USD).toBe('1.07');
  });

  it('replaces a stored day that gained or lost a currency', () => {
    expect(TABLE.merge([pub('2024-03-27', { USD: '1.07' })]).get('2024-03-27')?.rates).toEqual({ USD: '1.07' });
  });

  it('returns the same table when nothing is new', () => {
    expect(TABLE.merge([])).toBe(TABLE);
  });

  it('throws a TypeError when the incoming days repeat a date', () => {
    expect(() => TABLE.merge([pub('2024-04-03'), pub('2024-04-03')])).toThrow(TypeError);
  });
});

describe('samePublication', () => {
  it.each([
    [{ USD: '143.20' }, { USD: '143.2' }, true],
    [{ USD: '1' }, { USD: '1.000' }, true],
    [{ USD: '0.5' }, { USD: '00.50' }, true],
    [{ USD: '10' }, { USD: '1' }, false],
    [{ USD: '1.1' }, { USD: '1.01' }, false],
    [{ USD: '1.1' }, { JPY: '1.1' }, false],
    [{ USD: '1.1' }, { USD: '1.1', JPY: '150' }, false],
  ])('compares %j and %j as decimals: %s', (a, b, same) => {
    expect(samePublication(pub('2024-01-02', a), pub('2024-01-02', b))).toBe(same);
    expect(samePublication(pub('2024-01-02', b), pub('2024-01-02', a))).toBe(same);
  });

  it('differs on another day', () => {
    expect(samePublication(pub('2024-01-02'), pub('2024-01-03'))).toBe(false);
  });
});
