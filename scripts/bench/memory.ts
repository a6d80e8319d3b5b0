/** Memory figures of the server child, in bytes. */
export interface MemoryFigures {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  /** C++ objects bound to JS (Buffers, SQLite statements), off the V8 heap. */
  external: number;
  /** Peak RSS of the process so far (getrusage maxrss). */
  maxRss: number;
  /** True when a full GC ran just before (the child runs with --expose-gc). */
  afterGc: boolean;
}

/** What the server child reports about loading the ECB history, or why it did not. */
export type MemoryReport =
  | { skipped: string }
  | {
      file: string;
      first: string | null;
      newest: string | null;
      importSeconds: number;
      before: MemoryFigures;
      after: MemoryFigures;
      /** Taken when the parent asks, once every load row has run. */
      end?: MemoryFigures;
    };

/** process.memoryUsage() after a full GC when the child was started with --expose-gc. */
export function memoryNow(): MemoryFigures {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) {
    // Twice: the first pass can leave objects that only become unreachable after finalisers ran.
    gc();
    gc();
  }
  const usage = process.memoryUsage();
  return {
    rss: usage.rss,
    heapUsed: usage.heapUsed,
    heapTotal: usage.heapTotal,
    external: usage.external,
    maxRss: process.resourceUsage().maxRSS * 1024,
    afterGc: gc !== undefined,
  };
}
