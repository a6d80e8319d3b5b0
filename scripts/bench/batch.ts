import assert from 'node:assert/strict';
import Decimal from 'decimal.js';
import { PLANS } from '../../src/domain/plans';

/**
 * The batch row's request: 1,000 unit conversions spread over 13 unit pairs and 1,000 distinct
 * values, so no layer can answer it from one memoised item. Every expected result is computed here
 * with decimal.js from factors written from the units' definitions, not taken from the app.
 */
export const BATCH_ITEMS = 1000;

interface Pair {
  from: string;
  to: string;
  category: string;
  /** result = value × factor + offset, exactly. */
  factor: string;
  offset?: string;
}

const PAIRS: readonly Pair[] = [
  { from: 'inch', to: 'centimeter', category: 'length', factor: '2.54' },
  { from: 'foot', to: 'meter', category: 'length', factor: '0.3048' },
  { from: 'mile', to: 'kilometer', category: 'length', factor: '1.609344' },
  { from: 'pound', to: 'kilogram', category: 'mass', factor: '0.45359237' },
  { from: 'ounce', to: 'gram', category: 'mass', factor: '28.349523125' },
  { from: 'gallon_us', to: 'liter', category: 'volume', factor: '3.785411784' },
  { from: 'acre', to: 'square_meter', category: 'area', factor: '4046.8564224' },
  { from: 'hour', to: 'second', category: 'time', factor: '3600' },
  { from: 'kilowatt_hour', to: 'joule', category: 'energy', factor: '3600000' },
  { from: 'kibibyte', to: 'byte', category: 'data', factor: '1024' },
  { from: 'byte', to: 'bit', category: 'data', factor: '8' },
  { from: 'kilogram_force', to: 'newton', category: 'force', factor: '9.80665' },
  // 1 °C = 1.8 °F, 0 °C = 32 °F: the one affine conversion.
  { from: 'celsius', to: 'fahrenheit', category: 'temperature', factor: '1.8', offset: '32' },
];

const Exact = Decimal.clone({ precision: 100, rounding: Decimal.ROUND_HALF_EVEN });

export interface BatchItem {
  value: string;
  from: string;
  to: string;
}

/** Item i: pair i mod 13, a value made of i (1,000 distinct values, about a fifth of them negative). */
export function batchItems(count = BATCH_ITEMS): BatchItem[] {
  return Array.from({ length: count }, (_, i) => {
    const pair = PAIRS[i % PAIRS.length]!;
    // Never negative in °C: values below -273.15 °C are refused (below absolute zero).
    const negative = i % 5 === 0 && pair.offset === undefined;
    const value = `${negative ? '-' : ''}${1 + ((i * 37) % 997)}.${String(i).padStart(3, '0')}`;
    return { value, from: pair.from, to: pair.to };
  });
}

/** What `data` of one item must be: the input echoed, the exact result printed without trailing zeros. */
export function expectedConversion(item: BatchItem) {
  const pair = PAIRS.find((p) => p.from === item.from && p.to === item.to);
  if (!pair) throw new TypeError(`no expected factor for ${item.from} → ${item.to}`);
  // Every factor and value here is a terminating decimal of a few digits, so the result is exact
  // well within 100 digits, and toFixed() prints it plainly (no exponent, no trailing zeros).
  const result = new Exact(item.value)
    .times(pair.factor)
    .plus(pair.offset ?? '0')
    .toFixed();
  return { input: { value: item.value, unit: item.from }, result: { value: result, unit: item.to }, category: pair.category };
}

/** Throws unless `json` is the batch answer for `items`: every item succeeded, in order, with its exact result. */
export function checkBatchAnswer(json: unknown, items: readonly BatchItem[]): void {
  const data = (json as { data?: { results?: unknown[]; succeeded?: unknown; failed?: unknown } }).data;
  assert.ok(data && Array.isArray(data.results), 'no data.results array');
  assert.equal(data.results.length, items.length, 'results count');
  assert.equal(data.succeeded, items.length, 'succeeded');
  assert.equal(data.failed, 0, 'failed');
  data.results.forEach((entry, i) => assert.deepEqual(entry, { kind: 'unit', data: expectedConversion(items[i]!) }, `item ${i}`));
}

/**
 * Business accounts the batch row spreads its requests over, so the quota never runs out mid-run.
 * Every request is charged for real, 1,000 conversions against the one account of its key (the app's
 * own conditional upsert); the bench only provides enough quota, as a customer with several
 * accounts would have. Sized for MAX_ITEMS_PER_SECOND over the whole load (warm-up, measurement,
 * and the ~1 s autocannon runs past --duration): 1,000,000 items/s is 1 µs of CPU per item, under
 * the 2–3 µs the exact conversion alone takes, so no run on one core can get there. If one ever
 * did, items would fail with QUOTA_EXCEEDED, their bodies would differ, and the run would fail.
 */
export const MAX_ITEMS_PER_SECOND = 1_000_000;

export function batchAccountsFor(warmupSeconds: number, durationSeconds: number): number {
  const items = MAX_ITEMS_PER_SECOND * (warmupSeconds + durationSeconds + 2);
  return Math.ceil(items / PLANS.business.monthlyQuota);
}
