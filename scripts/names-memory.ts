/**
 * What the names cost in memory: heap and RSS before and after loading one language, then every
 * supported language (run with `node --expose-gc --import tsx scripts/names-memory.ts`).
 */
import { SUPPORTED_LANGUAGES } from '../src/domain/language/supported';
import { CATEGORIES, UNITS } from '../src/domain/units';
import { buildRegistry, NO_SPANS } from '../src/domain/currency/registry';
import { createNames } from '../src/services/names';

const collect = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
const measure = () => {
  collect();
  collect();
  const { heapUsed, rss } = process.memoryUsage();
  return { heapUsed, rss };
};

const registry = buildRegistry(NO_SPANS);
const names = createNames();
const load = (language: (typeof SUPPORTED_LANGUAGES)[number]) => {
  const of = names.of(language);
  for (const unit of UNITS) of.unit(unit);
  for (const category of CATEGORIES) of.category(category);
  for (const entry of registry) of.currency(entry);
};

const before = measure();
load('de');
const one = measure();
for (const language of SUPPORTED_LANGUAGES) load(language);
const all = measure();
console.log(`before: heap ${mib(before.heapUsed)}, rss ${mib(before.rss)}`);
console.log(`one language (de): heap +${mib(one.heapUsed - before.heapUsed)}, rss +${mib(one.rss - before.rss)}`);
console.log(`all ${SUPPORTED_LANGUAGES.length} languages: heap +${mib(all.heapUsed - before.heapUsed)}, rss +${mib(all.rss - before.rss)}`);
