import { expect } from 'vitest';
import { FeedFormatError } from '../../../src/domain/sources/types';

/** UTF-8 bytes of a made-up response. */
export const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

/** Runs `fn`, expects a FeedFormatError, and returns it. */
export function expectFormatError(fn: () => unknown, line: number, reason: RegExp): FeedFormatError {
  let thrown: unknown;
  try {
    fn();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(FeedFormatError);
  const error = thrown as FeedFormatError;
  expect({ line: error.line, reason: error.reason }).toEqual({ line, reason: expect.stringMatching(reason) });
  return error;
}
