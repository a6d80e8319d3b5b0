/**
 * The stall guard's families for conversions through two sources (contract §13): a free key floods
 * a pair no single source quotes (the Kenyan shilling, in NBP's weekly table B, to gold, in the
 * NBU's daily table: two legs joined through the US dollar), and a unit expression over the same
 * pair, against a real server holding the ECB history and both publishers' recorded responses
 * (../shared, read in place). A probe is sent every 20 ms (open loop) and its median must stay
 * under PROBE_BOUND_MS; the key's limit holds (what is answered stays within what 50 requests a
 * second buy), nothing is answered 500, and every conversion answered is charged once. The same
 * flood of plain ECB conversions runs first, so the CPU each answer took is printed beside theirs.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, startServer, type ServerProcess } from '../helpers/server-process';
import { sharedDataPresent } from '../helpers/shared-data';
import { gauge, perSecondTally, probeFamily, repeatFor, sendTo, type Answer } from './stall-probe';

const PROBE_BOUND_MS = 300;
const MEMORY_BOUND_MB = 100;
const FAMILY_MS = 4000;
/** The default per-key limit (KEY_RATE_LIMIT), which the server keeps. */
const KEY_LIMIT_PER_SECOND = 50;
const SHARED = path.resolve(process.cwd(), '../shared');
const ZIP = path.join(SHARED, 'ecb/eurofxref-hist.zip');
const FEEDS = path.join(SHARED, 'feeds');
const PRESENT = sharedDataPresent(ZIP) && sharedDataPresent(path.join(FEEDS, 'nbp')) && sharedDataPresent(path.join(FEEDS, 'nbu'));
/** Where no publisher is ever reached: every figure comes from the files imported. */
const NOWHERE = 'http://127.0.0.1:9/none';

let server: ServerProcess;
let dataDir: string;
/** One free key per family, so each has its month's quota (1,000) to itself. */
let keys: string[];

beforeAll(async () => {
  if (!PRESENT) return;
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'measurement-stall-sources-'));
  const env = { DATA_DIR: dataDir, RATE_SOURCES: 'nbp,nbu' };
  await admin(['rates', 'import', ZIP], env);
  for (const source of ['nbp', 'nbu'])
    for (const file of readdirSync(path.join(FEEDS, source)))
      await admin(['rates', 'import', '--source', source, path.join(FEEDS, source, file)], env);
  keys = [];
  for (let i = 0; i < 3; i += 1) keys.push((await admin(['key', 'create', '--plan', 'free'], env)).key);
  server = await startServer({
    ...env,
    ECB_BASE_URL: NOWHERE,
    NBP_BASE_URL: NOWHERE,
    NBU_BASE_URL: NOWHERE,
    PUBLIC_RATE_LIMIT: '1000000',
  });
}, 180_000);
afterAll(async () => {
  await server?.kill();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const convertUrl = (from: string, to: string) => `/v1/convert?value=1000&from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`;
/** What an answer was: `200 nbp; nbu`, `429 RATE_LIMIT_EXCEEDED`. */
function outcomeOf(answer: Answer): string {
  const body = JSON.parse(answer.text) as {
    data?: { rate?: { source: string }; exchangeRate?: { source: string } };
    error?: { code: string };
  };
  if (answer.status !== 200) return `${answer.status} ${body.error?.code}`;
  return `200 ${body.data?.rate?.source ?? body.data?.exchangeRate?.source}`;
}
const cpuSeconds = async () => gauge((await sendTo(server, 'GET', '/metrics')).text, 'process_cpu_seconds_total');

/**
 * Four loops of the plain conversion and two of the expression, one after another each, for
 * FAMILY_MS, under the probe; what each answer was, the probe's figures and the CPU the server
 * spent per answer with a conversion in it.
 */
async function flood(name: string, key: string, conversion: string, expression: string) {
  const cpuBefore = await cpuSeconds();
  const guarded = await probeFamily(
    name,
    () =>
      Promise.all([
        ...[1, 2, 3, 4].map(() => repeatFor(FAMILY_MS, () => sendTo(server, 'GET', conversion, { key }))),
        ...[1, 2].map(() => repeatFor(FAMILY_MS, () => sendTo(server, 'GET', expression, { key }))),
      ]),
    { on: () => server, openLoopEveryMs: 20 },
  );
  const cpuMs = ((await cpuSeconds()) - cpuBefore) * 1000;
  const outcomes = guarded.answers.flat().map(outcomeOf);
  const answered = outcomes.filter((outcome) => outcome.startsWith('200')).length;
  const cpuPerAnswerMs = cpuMs / Math.max(1, answered);
  console.info(
    `[stall-guard] ${name}: a second, ${perSecondTally(outcomes, FAMILY_MS)}; ` +
      `${cpuMs.toFixed(0)} ms of CPU, ${cpuPerAnswerMs.toFixed(2)} ms per conversion answered (probes and refusals included)`,
  );
  return { ...guarded, outcomes, answered, cpuPerAnswerMs };
}

/** The conversions a key was charged this month, by its own usage route. */
async function charged(key: string): Promise<number> {
  const answer = await sendTo(server, 'GET', '/v1/usage', { key });
  expect(answer.status, answer.text).toBe(200);
  return (JSON.parse(answer.text) as { data: { quota: { used: number } } }).data.quota.used;
}

describe.skipIf(!PRESENT)('conversions through two sources from a free key, at the default per-key limit', { retry: 1 }, () => {
  it('floods of two-source conversions and expressions hold no probe, stay within the limit and are charged once each', async () => {
    const [ecbKey, sourcesKey] = keys as [string, string];
    const ecb = await flood('ECB conversions', ecbKey, convertUrl('USD', 'JPY'), convertUrl('USD/kWh', 'JPY/MWh'));
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const two = await flood('two-source conversions', sourcesKey, convertUrl('KES', 'XAU'), convertUrl('KES/kWh', 'XAU/MWh'));
    console.info(
      `[stall-guard] two-source conversions: ${(two.cpuPerAnswerMs / ecb.cpuPerAnswerMs).toFixed(2)}× the CPU per answer of ECB ones`,
    );
    for (const family of [ecb, two]) {
      expect(family.probeP50Ms).toBeLessThan(PROBE_BOUND_MS);
      expect(family.memoryGrowthMb).toBeLessThan(MEMORY_BOUND_MB);
      expect(family.outcomes.every((outcome) => outcome.startsWith('200 ') || outcome === '429 RATE_LIMIT_EXCEEDED')).toBe(true);
      expect(family.outcomes).toContain('429 RATE_LIMIT_EXCEEDED');
      expect(family.answered).toBeLessThanOrEqual(KEY_LIMIT_PER_SECOND * (FAMILY_MS / 1000 + 1));
    }
    expect(new Set(ecb.outcomes.filter((o) => o.startsWith('200')))).toEqual(new Set(['200 ecb']));
    // Both the conversion and the expression went through the two publishers, said leg by leg.
    expect(new Set(two.outcomes.filter((o) => o.startsWith('200')))).toEqual(new Set(['200 nbp; nbu']));
    expect(await charged(sourcesKey)).toBe(two.answered);
  });
});
