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

/**
 * What a request's own spend pays for: every field it runs (`request`: a REST route, an MCP call;
 * `document`: a GraphQL document, which spends one request before it is parsed and the rest of its
 * price, src/graphql/price.ts, before it executes), or the first rate-limited field of its bucket's
 * kind (`first-field`: a GraphQL document not priced yet, and a field's directive on its own).
 */
export type SpendCover = 'request' | 'document' | 'first-field';

/**
 * The one record of what a request spent of the request rate limits: from which bucket (decided
 * once per request), how many requests, what the request's own spend covers, and the limit's state
 * after the last spend for the RateLimit headers and GraphQL's `extensions.rateLimit`. Every
 * surface reads it; src/http/limits/request-spending.ts writes it.
 */
export class RateLimitSpend {
  /** The bucket the request spends from: its key's (`key`) or its client IP's (`public`); undefined until decided. */
  kind: RateLimitKind | undefined;
  /** The bucket of that kind: the key's id, or the client IP's bucket (`rateLimitBucket`); undefined until spent from. */
  bucket: string | undefined;
  /** What the request's own spend paid for; undefined until it was paid (never, when it was refused). */
  covers: SpendCover | undefined;
  /** Requests counted against the bucket, refused ones included (the limiter counts those too). */
  spent = 0;
  /** A GraphQL document's price in requests (src/graphql/price.ts), once it was priced. */
  price: number | undefined;
  /** The last spend was refused (RATE_LIMIT_EXCEEDED). */
  refused = false;
  /** The limit's state after the last spend (a field's refusal included): the answer's RateLimit fields. */
  state: RateLimitState | undefined;
  private firstFieldClaimed = false;

  /** The request's own spend went through: nothing more is spent before the fields. */
  get paid(): boolean {
    return this.covers !== undefined;
  }

  /**
   * Whether a rate-limited field of `kind` spends one request: never when the request's spend
   * covers the request or its priced document; never a public field of a request that spends its key's limit (a caller
   * with a valid key never spends its IP's); not the first field of the kind the request's spend
   * covers; one request otherwise. Claims the prepaid first field when it answers false for it.
   */
  fieldSpends(kind: RateLimitKind): boolean {
    if (this.covers === 'request' || this.covers === 'document') return false;
    if (kind === 'public' && this.kind === 'key') return false;
    if (this.covers === 'first-field' && kind === this.kind && !this.firstFieldClaimed) {
      this.firstFieldClaimed = true;
      return false;
    }
    return true;
  }

  /** Records a spend of `points` from the request's bucket and the state it left (refused or not). */
  counted(points: number, state: RateLimitState | undefined, refused: boolean): void {
    this.spent += points;
    this.refused = refused;
    if (state) this.state = state;
  }
}
