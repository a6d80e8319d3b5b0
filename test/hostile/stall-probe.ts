/**
 * The stall guard's probe and its plumbing, shared by its suites: a family of requests runs while a
 * public `GET /v1/units/ft` is sent beside it, and what the probe waited, the event loop's delay and
 * the server's memory growth are measured and printed.
 */
import { expect } from 'vitest';
import type { ServerProcess } from '../helpers/server-process';

/** A probe sent this long after the answer to the one before, unless the family asks for an open loop. */
const PROBE_EVERY_MS = 50;

export interface Answer {
  status: number;
  text: string;
  headers?: Headers;
}

export interface SendOptions {
  key?: string;
  body?: unknown;
  accept?: string;
  headers?: Record<string, string>;
}

export async function sendTo(to: ServerProcess, method: string, url: string, options: SendOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  if (options.accept) headers.accept = options.accept;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${to.base}${url}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

/** One gauge of the exposition, in milliseconds. */
export const gaugeMs = (text: string, name: string): number => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN) * 1000;

export interface Guarded<T> {
  answers: T;
  probeMaxMs: number;
  probeP50Ms: number;
  probes: number;
  /** Growth of the server's resident memory over the family, in MB. */
  memoryGrowthMb: number;
}

/** One gauge of the exposition, as it is. */
export const gauge = (text: string, name: string): number => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);

/**
 * Runs a family while probing the public route; prints what the probe and the event loop saw.
 * The scrape before the family opens a fresh window of the server's event-loop delay.
 */
export interface ProbeOptions {
  /** The server probed. */
  on: () => ServerProcess;
  /**
   * Send a probe every this many ms whether the one before has been answered or not, as a user's
   * requests arrive (the probe: every 20 ms), so a stall counts for every probe it holds;
   * by default a probe is sent PROBE_EVERY_MS after the answer to the one before.
   */
  openLoopEveryMs?: number;
}

export async function probeFamily<T>(family: string, run: () => Promise<T>, options: ProbeOptions): Promise<Guarded<T>> {
  const send = (method: string, url: string) => sendTo(options.on(), method, url);
  const rssBefore = gauge((await send('GET', '/metrics')).text, 'process_resident_memory_bytes');
  const waits: number[] = [];
  let running = true;
  const probe = async () => {
    const started = performance.now();
    const res = await send('GET', '/v1/units/ft');
    waits.push(performance.now() - started);
    expect(res.status, res.text).toBe(200);
  };
  const probing = (async () => {
    const inFlight: Promise<void>[] = [];
    while (running) {
      if (options.openLoopEveryMs === undefined) await probe();
      else inFlight.push(probe());
      await new Promise((resolve) => setTimeout(resolve, options.openLoopEveryMs ?? PROBE_EVERY_MS));
    }
    await Promise.all(inFlight);
  })();
  const started = performance.now();
  const answers = await run();
  const tookMs = performance.now() - started;
  running = false;
  await probing;
  const metrics = (await send('GET', '/metrics')).text;
  const sorted = [...waits].sort((a, b) => a - b);
  const probeMaxMs = sorted.at(-1) ?? 0;
  const probeP50Ms = sorted[sorted.length >> 1] ?? 0;
  const memoryGrowthMb = (gauge(metrics, 'process_resident_memory_bytes') - rssBefore) / 1e6;
  console.info(
    `[stall-guard] ${family}: took ${tookMs.toFixed(0)} ms; probe ${waits.length} sent, median ${probeP50Ms.toFixed(1)} ms, ` +
      `p99 ${sorted[Math.floor(sorted.length * 0.99)]?.toFixed(1)} ms, max ${probeMaxMs.toFixed(1)} ms; memory ${memoryGrowthMb >= 0 ? '+' : ''}${memoryGrowthMb.toFixed(0)} MB; ` +
      `event-loop delay p99 ${gaugeMs(metrics, 'nodejs_eventloop_lag_p99_seconds').toFixed(1)} ms, max ${gaugeMs(metrics, 'nodejs_eventloop_lag_max_seconds').toFixed(1)} ms`,
  );
  return { answers, probeMaxMs, probeP50Ms, probes: waits.length, memoryGrowthMb };
}

/** Sends `request` again and again, one after another, for `ms`; every answer, in order. */
export async function repeatFor<T>(ms: number, request: () => Promise<T>): Promise<T[]> {
  const answers: T[] = [];
  const until = performance.now() + ms;
  while (performance.now() < until) answers.push(await request());
  return answers;
}

/** How many of each outcome, a second over `ms`: `2.5 × 429`. */
export function perSecondTally(outcomes: readonly string[], ms: number): string {
  const tally = new Map<string, number>();
  for (const outcome of outcomes) tally.set(outcome, (tally.get(outcome) ?? 0) + 1);
  return [...tally].map(([outcome, n]) => `${((n * 1000) / ms).toFixed(1)} × ${outcome}`).join(', ');
}
