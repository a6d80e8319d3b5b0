/** The request rate limits' vocabulary (contract section 7), shared by the services and the HTTP edge. */
export type RateLimitKind = 'public' | 'key';
export const RATE_LIMIT_KINDS: readonly RateLimitKind[] = ['public', 'key'];

export interface RateLimitPolicy {
  /** The policy's name in the RateLimit and RateLimit-Policy fields. */
  readonly name: string;
  readonly limit: number;
  readonly windowSeconds: number;
  /** For messages: "a minute per client IP". */
  readonly description: string;
}

export interface RateLimitState {
  readonly policy: RateLimitPolicy;
  readonly remaining: number;
  /** Whole seconds until the window resets; at least 1. */
  readonly resetSeconds: number;
}

