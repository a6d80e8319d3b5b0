import type { ServerResponse } from 'node:http';
import type { StreamedBody } from '../answer/answer-parts';

/**
 * How a streamed body ended: written whole, cut by the client going away, cut because the client
 * took nothing for the progress timeout, or cut by a failure of its producer.
 */
export type StreamEnd = { ended: 'whole' } | { ended: 'gone' } | { ended: 'stalled' } | { ended: 'failed'; error: unknown };

export interface StreamOptions {
  /**
   * A client that takes none of the bytes waiting for it for this long has its connection closed
   * (STREAM_PROGRESS_TIMEOUT_SECONDS): whatever the body holds (an export slot, a compressor) is
   * given back instead of being held by a reader that stopped reading.
   */
  progressTimeoutMs: number;
}

/**
 * Writes a streamed body after its head (node:http sends it chunked: the head has no
 * Content-Length), one chunk at a time: the next chunk is pulled only once `res.write` accepted the
 * previous one, or after 'drain' when it did not (the client reads slower than the body is made).
 * When the client goes away the producer is told (its `return()`, so it stops reading rates and
 * gives back what it holds) and nothing more is written. A producer that throws half-way cannot
 * turn the sent 200 into an error: the connection is destroyed instead, so the client sees a cut
 * body (no last chunk), never a complete-looking one. A client that takes none of the bytes
 * waiting for it within the progress timeout is cut off the same way.
 */
export async function writeStreamed(res: ServerResponse, body: StreamedBody, { progressTimeoutMs }: StreamOptions): Promise<StreamEnd> {
  const iterator = body[Symbol.asyncIterator]();
  let gone = res.destroyed;
  let wake: (() => void) | undefined;
  const onClose = () => {
    gone = true;
    wake?.();
  };
  res.once('close', onClose);
  try {
    for (;;) {
      if (gone) return await stopped(iterator, false);
      const step = await iterator.next();
      if (step.done) break;
      if (gone) return await stopped(iterator, false);
      if (res.write(step.value)) continue;
      if (await drainedOrGone(res, progressTimeoutMs, (done) => (wake = done))) {
        res.destroy();
        return await stopped(iterator, true);
      }
    }
    res.end();
    return { ended: 'whole' };
  } catch (error) {
    if (gone) return { ended: 'gone' };
    res.destroy();
    return { ended: 'failed', error };
  } finally {
    res.off('close', onClose);
  }
}

/**
 * Resolves false on 'drain' or when `register`'s callback is called (the client went away); true
 * when the bytes waiting for the client did not shrink for `timeoutMs` (a chunk of them taken by
 * the socket is progress, so a slow reader is not a stalled one).
 */
function drainedOrGone(res: ServerResponse, timeoutMs: number, register: (done: (() => void) | undefined) => void): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    let waiting = res.writableLength;
    let timer: NodeJS.Timeout;
    const settle = (stalled: boolean) => {
      clearTimeout(timer);
      res.off('drain', done);
      register(undefined);
      resolve(stalled);
    };
    const done = () => settle(false);
    const check = () => {
      const now = res.writableLength;
      if (now >= waiting) return settle(true);
      waiting = now;
      timer = setTimeout(check, timeoutMs);
    };
    timer = setTimeout(check, timeoutMs);
    register(done);
    res.once('drain', done);
  });
}

/** Tells the producer its client has gone; a producer that fails to stop is no concern of the client's. */
async function stopped(iterator: AsyncIterator<string | Uint8Array>, stalled: boolean): Promise<StreamEnd> {
  await iterator.return?.().catch(() => undefined);
  return { ended: stalled ? 'stalled' : 'gone' };
}

/** Lets a streamed body that will never be read (a HEAD answer) release what it holds; it has not started, so nothing of it runs. */
export function discardStreamed(body: StreamedBody): void {
  void body[Symbol.asyncIterator]()
    .return?.()
    ?.catch(() => undefined);
}
