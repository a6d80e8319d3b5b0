import pino, { type Logger } from 'pino';

/** Structured JSON logs. The Authorization header and anything key-like are never logged. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'measurement-api' },
    redact: { paths: ['req.headers.authorization', 'headers.authorization', 'key', '*.key'], censor: '[redacted]' },
  });
}
