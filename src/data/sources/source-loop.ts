/** What one source's loop needs: the fetch, and how long to wait after it. */
export interface SourceLoopOptions {
  /** Fetches once; a rejection is recorded by the caller, the loop only goes on. */
  refresh: () => Promise<unknown>;
  /** Milliseconds until the next fetch, given whether the last one failed. */
  delayAfter: (failed: boolean) => number;
}

/**
 * Fetches one source at once, then again and again after `delayAfter`: one timer per source,
 * unref'd, so a source that hangs or fails never delays another's, and stop() clears it.
 */
export class SourceLoop {
  private readonly options: SourceLoopOptions;
  private timer: NodeJS.Timeout | undefined;
  private running = false;

  constructor(options: SourceLoopOptions) {
    this.options = options;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    void this.tick();
  }

  stop(): void {
    this.running = false;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async tick(): Promise<void> {
    this.timer = undefined;
    const failed = await this.options.refresh().then(
      () => false,
      () => true,
    );
    if (!this.running) return;
    this.timer = setTimeout(() => void this.tick(), this.options.delayAfter(failed));
    this.timer.unref();
  }
}
