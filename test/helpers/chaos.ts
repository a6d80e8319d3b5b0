import type { ServerProcess } from './server-process';

/**
 * Keyed load for the chaos suites: each client keeps one conversion in flight at a time, round robin
 * over the instances still alive, and every answer is recorded (status, latency, Retry-After, which
 * instance, when it started), so a test can judge what clients saw during and after a fault. No
 * request waits longer than REQUEST_TIMEOUT_MS: a hung answer is recorded as status 0, not waited for.
 */
export const REQUEST_TIMEOUT_MS = 20_000;

export interface Answer {
  /** HTTP status; 0 when no answer came within REQUEST_TIMEOUT_MS, -1 when the connection failed. */
  status: number;
  ms: number;
  retryAfter: string | null;
  /** Index of the instance asked. */
  instance: number;
  /** performance.now() when the request was sent. */
  startedAt: number;
  client: number;
}

export interface Load {
  readonly answers: Answer[];
  /** Conversions answered 200, per key. */
  readonly delivered: Map<string, number>;
  /** Requests in flight per instance right now. */
  inFlight(instance: number): number;
  /** No new request goes to this instance (it is about to be killed, or was). */
  avoid(instance: number): void;
  stop(): Promise<void>;
}

export const CONVERT = '/v1/convert?value=1&from=mile&to=km';

/** One timed GET (no key unless given); never waits longer than REQUEST_TIMEOUT_MS. */
export async function timedGet(
  url: string,
  key?: string,
): Promise<{ status: number; ms: number; retryAfter: string | null; body: string }> {
  const started = performance.now();
  try {
    const res = await fetch(url, {
      headers: key ? { authorization: `Bearer ${key}` } : {},
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const body = await res.text();
    return { status: res.status, ms: performance.now() - started, retryAfter: res.headers.get('retry-after'), body };
  } catch (error) {
    const timedOut = (error as Error).name === 'TimeoutError';
    return { status: timedOut ? 0 : -1, ms: performance.now() - started, retryAfter: null, body: String(error) };
  }
}

export function startLoad(servers: readonly ServerProcess[], keys: readonly string[]): Load {
  const answers: Answer[] = [];
  const delivered = new Map<string, number>(keys.map((key) => [key, 0]));
  const flying = servers.map(() => 0);
  const avoided = new Set<number>();
  let stopped = false;
  let turn = 0;
  const client = async (index: number, key: string) => {
    while (!stopped) {
      const alive = servers.map((_, i) => i).filter((i) => !avoided.has(i));
      if (alive.length === 0) return;
      const instance = alive[turn++ % alive.length]!;
      flying[instance]! += 1;
      const startedAt = performance.now();
      const answer = await timedGet(`${servers[instance]!.base}${CONVERT}`, key);
      flying[instance]! -= 1;
      answers.push({ status: answer.status, ms: answer.ms, retryAfter: answer.retryAfter, instance, startedAt, client: index });
      if (answer.status === 200) delivered.set(key, delivered.get(key)! + 1);
      // A refused connection answers at once: do not spin on a dead instance.
      if (answer.status <= 0) await sleep(50);
    }
  };
  const running = Promise.all(keys.map((key, i) => client(i, key)));
  return {
    answers,
    delivered,
    inFlight: (instance) => flying[instance]!,
    avoid: (instance) => void avoided.add(instance),
    async stop() {
      stopped = true;
      await running;
    },
  };
}

/** Counts of answers by status, e.g. `{ 200: 812, 503: 14 }`. */
export function byStatus(answers: readonly Answer[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const answer of answers) counts[answer.status] = (counts[answer.status] ?? 0) + 1;
  return counts;
}

export function maxMs(answers: readonly { ms: number }[]): number {
  return Math.round(answers.reduce((max, a) => Math.max(max, a.ms), 0));
}

/**
 * Milliseconds from `since` until every instance in `instances` has answered 200 to a request sent
 * after `since` and every later request to it answered 200 too; Infinity when that never happened.
 */
export function healedAfter(answers: readonly Answer[], since: number, instances: readonly number[]): number {
  let worst = 0;
  for (const instance of instances) {
    const after = answers.filter((a) => a.instance === instance && a.startedAt >= since).sort((a, b) => a.startedAt - b.startedAt);
    let lastBad = -1;
    after.forEach((a, i) => {
      if (a.status !== 200) lastBad = i;
    });
    const firstGood = after[lastBad + 1];
    if (!firstGood) return Infinity;
    worst = Math.max(worst, firstGood.startedAt + firstGood.ms - since);
  }
  return Math.round(worst);
}

/** Waits until `condition` holds (polled), or `ms` passed; returns whether it held. */
export async function waitFor(condition: () => boolean | Promise<boolean>, ms: number, every = 100): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await sleep(every);
  }
  return condition();
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** True while the process has not exited. */
export function alive(server: ServerProcess): boolean {
  return server.child.exitCode === null && server.child.signalCode === null;
}
