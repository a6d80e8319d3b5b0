import { Writable } from 'node:stream';
import pino, { type Level, type Logger } from 'pino';

/** A pino logger whose JSON lines the test reads back, parsed, in the order written. */
export function capturedLogger(level: Level = 'info'): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level }, sink), lines };
}
