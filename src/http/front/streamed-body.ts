import type { ServerResponse } from 'node:http';
import type { StreamedBody } from '../answer/answer-parts';

/** How a streamed body ended: written whole, cut by the client going away, or cut by a failure of its producer. */
export type StreamEnd = { ended: 'whole' } | { ended: 'gone' } | { ended: 'failed'; error: unknown };

/**
 * Writes a streamed body after its head (node:http sends it chunked: the head has no
 * Content-Length), one chunk at a time: the next chunk is pulled only once `res.write` accepted the
 * previous one, or after 'drain' when it did not (the client reads slower than the body is made).
 * When the client goes away the producer is told (its `return()`, so it stops reading rates and
 * gives back what it holds) and nothing more is written. A producer that throws half-way cannot
 * turn the sent 200 into an error: the connection is destroyed instead, so the client sees a cut
 * body (no last chunk), never a complete-looking one.
 */
export async function writeStreamed(res: ServerResponse, body: StreamedBody): Promise<StreamEnd> {
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
      if (gone) return await stopped(iterator);
      const step = await iterator.next();
      if (step.done) break;
      if (gone) return await stopped(iterator);
      if (!res.write(step.value)) await drainedOrGone(res, (done) => (wake = done));
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

/** Resolves on 'drain', or when `register`'s callback is called (the client went away). */
function drainedOrGone(res: ServerResponse, register: (done: (() => void) | undefined) => void): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done);
      register(undefined);
      resolve();
    };
    register(done);
    res.once('drain', done);
  });
}

/** Tells the producer its client has gone; a producer that fails to stop is no concern of the client's. */
async function stopped(iterator: AsyncIterator<string | Uint8Array>): Promise<StreamEnd> {
  await iterator.return?.().catch(() => undefined);
  return { ended: 'gone' };
}

/** Lets a streamed body that will never be read (a HEAD answer) release what it holds; it has not started, so nothing of it runs. */
export function discardStreamed(body: StreamedBody): void {
  void body[Symbol.asyncIterator]()
    .return?.()
    ?.catch(() => undefined);
}
