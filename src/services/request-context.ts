import { randomUUID } from 'node:crypto';
import DataLoader from 'dataloader';
import type { Account } from './account-store';
import { chooseLanguage, type LanguageChoice } from '../domain/language/choose';
import type { Publication } from '../domain/ecb';
import type { Surface } from '../domain/errors';
import type { QuotaState } from '../domain/quota';
import type { Principal } from './auth';
import type { CredentialResource } from './oauth';
import type { Caller } from './conversion-charges';
import type { PublicationLoader } from './currency/publication';

/** What a request context needs from the services; app.ts wires them, tests may pass their own. */
export interface RequestContextServices {
  authenticate(authorization: string | null, resource?: CredentialResource): Promise<Principal>;
  /**
   * The principal of a key the key cache found active, without this turn's revision read, and the
   * revision it was found in (auth.ts unconfirmedPrincipal); undefined when the key must be checked
   * in full. Absent where a revision read costs no round trip.
   */
  unconfirmedPrincipal?(authorization: string | null): { principal: Principal; revision: number } | undefined;
  /** Reads the keys revision (once per turn, shared): what `confirmKey` compares with. */
  keysRevision?(): Promise<number>;
  loadPublications(dates: readonly string[]): Promise<(Publication | undefined)[]>;
  /** The account's quota this month, counting nothing. */
  quotaState(account: Account): Promise<QuotaState>;
}

export interface RequestContextInit {
  /** The raw Authorization header, authenticated on first use only. */
  authorization: string | null;
  /** The caller's per-IP rate-limit bucket, computed on first use (TRUST_PROXY decides the address). */
  clientBucket: () => string;
  /** The raw Accept-Language header: the language of names when a field is given no `lang`. */
  acceptLanguage?: string | null;
  /** The API the request came through (default GraphQL): what its error messages name. */
  surface?: Surface;
  /** The resource its credential is presented to: `mcp` takes agents' OAuth tokens besides API keys. */
  resource?: CredentialResource;
  /** The raw Host header: what a link in the answer may be built on (series-links.ts decides when). */
  host?: string | null;
}

/** One conversion field of a document, in document order, and how many conversions it asks for. */
export interface PlannedConversion {
  /** The field's response key (its alias, or its name). */
  readonly responseKey: string;
  /** 1 for a conversion field, the number of items for a batch. */
  readonly conversions: number;
}

/**
 * What one request's use cases share, for REST and GraphQL alike: its id and start, the
 * authenticated key, the quota state after its charges, the languages of its names, its publication
 * reads, and what the document may still compute. The front mints one per request (as its
 * HttpRequestContext, which adds the transport's own state); never shared between requests.
 */
export class RequestContext {
  readonly requestId = randomUUID();
  readonly startedAt = performance.now();
  /** The authenticated key, once a keyed route or field asked for it. */
  principal: Principal | undefined;
  /** The account's quota after this request's last charge (or as read before it): the state its answer reports. */
  quota: QuotaState | undefined;
  /** Conversions the operation asks for (conversion fields plus batch items), as planned before execution. */
  requestedConversions = 0;
  /** Conversions charged to the quota: the results present in the answer's `data`. */
  chargedConversions = 0;
  /** The languages this request's names were given in, each once (Content-Language, GraphQL's `extensions.languages`). */
  readonly languages: LanguageChoice[] = [];

  /**
   * The keys revision the principal was found active in, while no statement sent since has found it
   * unchanged; undefined once confirmed, or when the key was checked in full.
   */
  unconfirmedRevision: number | undefined;

  private authenticating: Promise<Principal> | undefined;
  /** Where the key comes from when a signed link names it (authenticateWith), instead of the Authorization header. */
  private linkedKey: (() => Promise<Principal>) | undefined;
  private bucket: string | undefined;
  private loader: PublicationLoader | undefined;
  private heldReads: (() => void)[] | undefined;
  private allowances: ReadonlyMap<string, number> | undefined;
  /** What is given back once the answer has been sent (holdUntilAnswered); undefined once it has. */
  private heldUntilAnswered: (() => void)[] | undefined = [];
  private spend: ((points: number) => Promise<void>) | undefined;

  constructor(
    private readonly services: RequestContextServices,
    private readonly init: RequestContextInit,
  ) {}

  /** The Host header as sent (null without one). */
  get host(): string | null {
    return this.init.host ?? null;
  }

  /** The API the request came through: a batch item's error names that API's listing. */
  get surface(): Surface {
    return this.init.surface ?? 'graphql';
  }

  /** The language of a field's names: its `lang`, else this request's Accept-Language, else English (noted for the answer). */
  language(lang: string | null | undefined): LanguageChoice {
    const choice = chooseLanguage(lang, this.init.acceptLanguage);
    this.noteLanguages([choice]);
    return choice;
  }

  /** Notes languages an answer's names are in (a kept answer's, when it is served again). */
  noteLanguages(choices: readonly LanguageChoice[]): void {
    for (const choice of choices) {
      if (!this.languages.some((c) => c.used === choice.used && c.source === choice.source && c.asked === choice.asked))
        this.languages.push(choice);
    }
  }

  /** Whether the request's key is the one a signed link names (authenticateWith), not one it sent. */
  get viaLink(): boolean {
    return this.linkedKey !== undefined;
  }

  /** The front's spend of this request's rate limit: where spendRequests spends. */
  spendsWith(spend: (points: number) => Promise<void>): void {
    this.spend = spend;
  }

  /** Spends `points` more requests of the bucket this request spends from (a series page's cost); RATE_LIMIT_EXCEEDED past it. */
  spendRequests(points: number): Promise<void> {
    if (!this.spend) throw new TypeError('spendRequests on a request context the front did not give a rate limit (spendsWith).');
    return this.spend(points);
  }

  /** Calls `release` once the request's answer has been sent or its client has gone (answered()); at once when that is past. */
  holdUntilAnswered(release: () => void): void {
    if (this.heldUntilAnswered) this.heldUntilAnswered.push(release);
    else release();
  }

  /** The request's answer has been sent, or its client has gone: what it held is given back. */
  answered(): void {
    const held = this.heldUntilAnswered ?? [];
    this.heldUntilAnswered = undefined;
    for (const release of held) release();
  }

  /** The caller's key, authenticated once per request; rejects with UNAUTHORIZED when absent or invalid. */
  authenticate(): Promise<Principal> {
    if (this.authenticating) return this.authenticating;
    const quick =
      this.confirmsKeyBeforeAnswer() && !this.linkedKey ? this.services.unconfirmedPrincipal?.(this.init.authorization) : undefined;
    if (quick) {
      this.principal = quick.principal;
      this.unconfirmedRevision = quick.revision;
      this.authenticating = Promise.resolve(quick.principal);
    } else {
      this.authenticating = this.checkKey();
    }
    return this.authenticating;
  }

  /**
   * The request's key is the one a signed link names, checked in full by `check` (against the
   * store, on every use): its first authentication, and any later one, asks `check` and never the
   * Authorization header.
   */
  authenticateWith(check: () => Promise<Principal>): void {
    this.linkedKey = check;
    this.authenticating = undefined;
    this.principal = undefined;
  }

  /** The key checked in full, after this turn's revision read (UNAUTHORIZED when it is no longer active). */
  private checkKey(): Promise<Principal> {
    const checked = this.linkedKey ? this.linkedKey() : this.services.authenticate(this.init.authorization, this.init.resource ?? 'api');
    return checked.then((principal) => {
      this.principal = principal;
      this.unconfirmedRevision = undefined;
      return principal;
    });
  }

  /**
   * The keys changed after the key was taken unconfirmed (its charge found the revision moved):
   * checks it again in full; rejects with UNAUTHORIZED when it was revoked.
   */
  recheckKey(): Promise<Principal> {
    // Until the check answers, the request has no principal (as a request not yet authenticated has none),
    // and nothing is left to confirm: the check reads the revision itself.
    this.principal = undefined;
    this.unconfirmedRevision = undefined;
    this.authenticating = this.checkKey();
    return this.authenticating;
  }

  /** A statement sent after the key was taken found `revision` unchanged: the key stands. */
  keyConfirmed(revision: number): void {
    if (revision === this.unconfirmedRevision) this.unconfirmedRevision = undefined;
  }

  /**
   * Whether the answer waits for confirmKey() to settle: only then may the key be taken from the key
   * cache unconfirmed, its charge's statement (or a revision read at the answer) confirming it.
   * No answer waits here; a transport that holds its answers overrides this.
   */
  protected confirmsKeyBeforeAnswer(): boolean {
    return false;
  }

  /**
   * Undefined when nothing is left to confirm; else reads the keys revision and, when it has moved,
   * checks the key again (rejecting with UNAUTHORIZED when it was revoked). Called before the answer
   * of a request that confirmsKeyBeforeAnswer().
   */
  confirmKey(): Promise<void> | undefined {
    const revision = this.unconfirmedRevision;
    if (revision === undefined) return undefined;
    if (!this.services.keysRevision) return this.recheckKey().then(() => undefined);
    return this.services.keysRevision().then(async (current) => {
      if (current === revision) this.keyConfirmed(revision);
      else await this.recheckKey();
    });
  }

  /** Whether the request carries an Authorization header at all (valid or not). */
  get carriesKey(): boolean {
    return this.init.authorization !== null;
  }

  get clientBucket(): string {
    this.bucket ??= this.init.clientBucket();
    return this.bucket;
  }

  /** Batches this request's publication reads into one cache read; built on first use, as most requests read no rates. */
  get publications(): PublicationLoader {
    this.loader ??= new DataLoader((dates) => this.services.loadPublications(dates), {
      batchScheduleFn: (dispatch) => this.scheduleRead(dispatch),
    });
    return this.loader;
  }

  /**
   * Holds this request's publication reads until the returned release is called: the reads asked
   * for meanwhile, over any number of event-loop turns, go out as one. A batch holds them while it
   * starts its items in slices of the loop, so that its publications are one cache read whatever
   * the machine's speed. A hold inside a hold releases nothing.
   */
  holdReads(): () => void {
    if (this.heldReads) return () => undefined;
    const held: (() => void)[] = [];
    this.heldReads = held;
    return () => {
      this.heldReads = undefined;
      for (const dispatch of held) afterPromiseJobs(dispatch);
    };
  }

  private scheduleRead(dispatch: () => void): void {
    if (this.heldReads) this.heldReads.push(dispatch);
    else afterPromiseJobs(dispatch);
  }

  /** What a conversion field needs: the key, this request's loader, and how much it may compute. */
  caller(responseKey?: string): Caller | Promise<Caller> {
    // Authenticated already (as a keyed route is, before its resolver runs): no promise more.
    if (this.principal) return this.callerOf(this.principal, responseKey);
    return this.authenticate().then((principal) => this.callerOf(principal, responseKey));
  }

  private callerOf(principal: Principal, responseKey: string | undefined): Caller {
    return {
      principal,
      keysRevision: this.unconfirmedRevision,
      recheckKey: () => this.recheckKey(),
      keyConfirmed: (revision) => this.keyConfirmed(revision),
      requestId: this.requestId,
      publications: this.publications,
      holdReads: () => this.holdReads(),
      allowance: responseKey === undefined ? undefined : this.allowances?.get(responseKey),
      reportCharge: (granted, state) => {
        this.chargedConversions += granted;
        this.quota = state;
      },
    };
  }

  /**
   * Before execution: shares the account's remaining quota among the document's conversion fields in
   * document order, so that fields (and batch items) past it are refused without being computed. A
   * document asking for one conversion at most needs no read: its charge alone decides. When the key
   * is missing or invalid nothing is planned, and each keyed field reports UNAUTHORIZED itself.
   * Undefined, not a promise, when there is nothing to plan: a single conversion awaits nothing.
   */
  planConversions(plan: readonly PlannedConversion[]): Promise<void> | undefined {
    const total = plan.reduce((sum, field) => sum + field.conversions, 0);
    this.requestedConversions = total;
    if (total <= 1) return undefined;
    return this.share(plan);
  }

  private async share(plan: readonly PlannedConversion[]): Promise<void> {
    const principal = await this.authenticate().catch(() => undefined);
    if (!principal) return;
    const state = await this.services.quotaState(principal.account);
    this.quota = state;
    let remaining = Math.max(0, state.limit - state.used);
    const allowances = new Map<string, number>();
    for (const field of plan) {
      const granted = Math.min(field.conversions, remaining);
      allowances.set(field.responseKey, granted);
      remaining -= granted;
    }
    this.allowances = allowances;
  }
}

/** DataLoader's own schedule: after the promise jobs of this turn, so that every load they make joins the batch. */
function afterPromiseJobs(dispatch: () => void): void {
  void Promise.resolve().then(() => process.nextTick(dispatch));
}
