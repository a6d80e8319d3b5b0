import { createHistogram } from 'node:perf_hooks';
import { Gauge, type Registry } from 'prom-client';

/** Work that is worth its timer only between start() and stop(); both may be called again. */
export interface PausableWork {
  start(): void;
  stop(): void;
}

/** How often the delay is sampled while sampling, as prom-client's default monitor does. */
const RESOLUTION_MS = 10;

/** prom-client's names and help texts of the delay's summary, with the statistic each reads. */
const SUMMARY = [
  ['min', 'The minimum recorded event loop delay.'],
  ['max', 'The maximum recorded event loop delay.'],
  ['mean', 'The mean of the recorded event loop delays.'],
  ['stddev', 'The standard deviation of the recorded event loop delays.'],
  ['p50', 'The 50th percentile of the recorded event loop delays.'],
  ['p90', 'The 90th percentile of the recorded event loop delays.'],
  ['p99', 'The 99th percentile of the recorded event loop delays.'],
] as const;

/** Every metric this module registers: collectDefaultMetrics' own of the same names are removed first. */
export const LOOP_DELAY_METRICS = ['nodejs_eventloop_lag_seconds', ...SUMMARY.map(([stat]) => `nodejs_eventloop_lag_${stat}_seconds`)];

/**
 * The event loop's delay as prom-client's default metrics report it (the time between two ticks of
 * a 10 ms timer, summarised over the window since the previous scrape, and one setImmediate's delay
 * at the scrape), but sampled only between start() and stop(): the front samples while any client
 * connection is open, so a server nobody is connected to is not woken 100 times a second to be
 * measured. A window without a sample reports 0 for each statistic.
 */
export function registerLoopDelay(registry: Registry): PausableWork {
  const histogram = createHistogram();
  let timer: NodeJS.Timeout | undefined;
  let last = 0;
  const tick = () => {
    const now = performance.now();
    histogram.record(Math.max(1, Math.round((now - last) * 1e6)));
    last = now;
  };
  const read: Record<(typeof SUMMARY)[number][0], () => number> = {
    min: () => histogram.min,
    max: () => histogram.max,
    mean: () => histogram.mean,
    stddev: () => histogram.stddev,
    p50: () => histogram.percentile(50),
    p90: () => histogram.percentile(90),
    p99: () => histogram.percentile(99),
  };
  // Registered before the summary: a registry collects its metrics in order, so this collect closes
  // the window (sets the seven statistics, then resets) before theirs are read.
  new Gauge({
    name: 'nodejs_eventloop_lag_seconds',
    help: 'Lag of event loop in seconds.',
    registers: [registry],
    async collect() {
      const empty = histogram.count === 0;
      for (const [stat, gauge] of gauges) gauge.set(empty ? 0 : read[stat]() / 1e9);
      histogram.reset();
      const start = performance.now();
      await new Promise((resolve) => setImmediate(resolve));
      this.set((performance.now() - start) / 1000);
    },
  });
  const gauges = SUMMARY.map(
    ([stat, help]) => [stat, new Gauge({ name: `nodejs_eventloop_lag_${stat}_seconds`, help, registers: [registry] })] as const,
  );
  return {
    start() {
      if (timer) return;
      last = performance.now();
      timer = setInterval(tick, RESOLUTION_MS).unref();
    },
    stop() {
      clearInterval(timer);
      timer = undefined;
    },
  };
}
