/** Registrants counted in one window at most: past it, a registrant not yet counted registers nothing until the window ends. */
const MAX_REGISTRANTS = 100_000;

/**
 * How many new documents each registrant (a key, or a client IP's bucket) may register in a fixed
 * window of this instance. Counted here, in memory: a registrant past its bound has its documents
 * run but not kept, and its count starts again with the next window.
 */
export class RegistrationAllowance {
  private readonly counts = new Map<string, number>();
  private windowStart: number;

  constructor(
    /** New documents a registrant may register per window. */
    readonly perWindow: number,
    readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.windowStart = now();
  }

  /** Counts one new registration of `registrant`; false (nothing counted) when it is past its bound. */
  take(registrant: string): boolean {
    const now = this.now();
    if (now - this.windowStart >= this.windowMs) {
      this.counts.clear();
      this.windowStart = now;
    }
    const count = this.counts.get(registrant) ?? 0;
    if (count >= this.perWindow) return false;
    if (count === 0 && this.counts.size >= MAX_REGISTRANTS) return false;
    this.counts.set(registrant, count + 1);
    return true;
  }
}
