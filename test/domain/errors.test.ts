import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/domain/errors';

describe('ApiError', () => {
  it('carries no stack trace: an expected answer, cheap to make under a flood of refusals', () => {
    const error = new ApiError('QUOTA_EXCEEDED', 'used up');
    expect(error.stack).toBe('ApiError: used up');
    expect(error).toBeInstanceOf(Error);
  });

  it('leaves the stack traces of other errors alone', () => {
    void new ApiError('INVALID_REQUEST', 'x');
    expect(new Error('y').stack).toContain('errors.test.ts');
  });
});
