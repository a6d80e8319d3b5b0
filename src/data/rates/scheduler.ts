import { DEFAULT_SCHEDULE, isDue, nextCheckDelayMs, type ScheduleOptions } from '../../domain/calendar/ecb-schedule';

export interface RefreshSchedulerOptions {
  clock: () => Date;
  /** The newest publication held right now. */
  newest: () => string | undefined;
  /** Fetches; its failures are recorded by the caller, the scheduler only keeps going. */
  refresh: () => Promise<unknown>;
  random?: () => number;
  schedule?: ScheduleOptions;
}

/**
 * Runs `refresh` on the ECB's schedule: from 16:00 Berlin on a business day, every few minutes
 * until the day's publication is held, then quiet until the next business day's 16:00. One timer
 * at a time, unref'd so it never keeps the process alive; stop() clears it.
 */
export class RefreshScheduler {
  private readonly options: RefreshSchedulerOptions;
  private timer: NodeJS.Timeout | undefined;
  private running = false;

  constructor(options: RefreshSchedulerOptions) {
    this.options = options;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.plan();
  }

  stop(): void {
    this.running = false;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private plan(): void {
    if (!this.running) return;
    const { clock, newest, random = Math.random, schedule = DEFAULT_SCHEDULE } = this.options;
    const delay = nextCheckDelayMs(newest(), clock(), random(), schedule);
    this.timer = setTimeout(() => void this.tick(), delay);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    this.timer = undefined;
    const { clock, newest, refresh } = this.options;
    // A wake-up only re-plans unless a publication is due; a failed refresh is retried next tick.
    if (isDue(newest(), clock())) await refresh().catch(() => undefined);
    this.plan();
  }
}
