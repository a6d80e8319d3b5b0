import pino, { type Logger } from 'pino';

/** Structured JSON logs. The Authorization header and anything key-like are never logged. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'measurement-api' },
    redact: { paths: ['req.headers.authorization', 'headers.authorization', 'key', '*.key'], censor: '[redacted]' },
  });
}

/**
 * Writes what the logger still buffers, now (pino writes asynchronously, and flushes what is left
 * when the process exits): before a last line on stderr and exit, so that line stays the last.
 */
export function flushLogSync(logger: Logger): void {
  const stream = (logger as unknown as Record<symbol, { flushSync?: () => void } | undefined>)[pino.symbols.streamSym];
  try {
    stream?.flushSync?.();
  } catch {
    // Not open yet: nothing has been written to flush.
  }
}
