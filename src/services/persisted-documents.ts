import { ByteLru } from './byte-lru';
import { RegistrationAllowance } from './registration-allowance';

/**
 * Where registered documents are shared between instances (Redis): a cache that may be lost or
 * slow at any time. Each call settles within the Redis deadline; a failure is a miss (`get`) or a
 * write that did not happen (`set`), never an error to the request.
 */
export interface SharedDocuments {
  get(hash: string): Promise<string | undefined>;
  /** Keeps a registration of `registrant` (counted against its bound there too, when new), within the store's own byte budget. */
  set(hash: string, document: string, registrant: string): Promise<void>;
  close(): Promise<void>;
}

export interface PersistedDocumentsOptions {
  /** The operator's documents (hash → text): always served, never evicted, never replaced. */
  manifest?: ReadonlyMap<string, string>;
  /** What this instance keeps of registered documents, in accounted bytes (least recently used go first). */
  maxBytes: number;
  /** Registered documents shared with the other instances (Redis), when configured. */
  shared?: SharedDocuments | undefined;
  /** New documents one registrant (a key, or a client IP's bucket) may register per hour (default REGISTRATIONS_PER_HOUR). */
  registrationsPerHour?: number;
  /** Milliseconds since the epoch (tests move it). */
  now?: () => number;
}

/** New documents one key (or client IP) may register in an hour, by default: far more than an application has documents. */
export const REGISTRATIONS_PER_HOUR = 100;
const HOUR_MS = 3_600_000;

/** Accounted bytes of one registered entry: the text and the hash as UTF-16, and the map entry around them. */
export function entryBytes(document: string): number {
  return 2 * document.length + 2 * 64 + ENTRY_OVERHEAD;
}

/** A Map entry, its record and two string headers, measured on V8 with room to spare. */
const ENTRY_OVERHEAD = 160;

/**
 * The documents a hash names (Apollo's APQ): the operator's manifest first, then this instance's
 * registrations (bounded by bytes: a flood of registrations evicts only other registrations), then
 * the shared store, whose hits are kept here too. Registration writes both; a registration never
 * replaces a manifest entry.
 */
export class PersistedDocuments {
  private readonly manifest: ReadonlyMap<string, string>;
  private readonly registered: ByteLru<string>;
  private readonly shared: SharedDocuments | undefined;
  private readonly allowance: RegistrationAllowance;

  constructor({ manifest = new Map(), maxBytes, shared, registrationsPerHour = REGISTRATIONS_PER_HOUR, now }: PersistedDocumentsOptions) {
    this.manifest = manifest;
    this.registered = new ByteLru<string>(maxBytes);
    this.shared = shared;
    this.allowance = new RegistrationAllowance(registrationsPerHour, HOUR_MS, now);
  }

  /** The document of `hash`, or undefined when no store holds it (or the shared one did not answer in time). */
  find(hash: string): string | undefined | Promise<string | undefined> {
    const known = this.manifest.get(hash) ?? this.registered.get(hash);
    if (known !== undefined || this.shared === undefined) return known;
    return this.shared.get(hash).then((document) => {
      if (document !== undefined) this.registered.set(hash, document, entryBytes(document));
      return document;
    });
  }

  /**
   * Keeps a document under its hash (already checked to be its SHA-256) here and in the shared
   * store, for `registrant` (a key's id, or a client IP's bucket). A document this instance does
   * not hold yet counts against the registrant's registrations this hour: past them it is run but
   * not kept (the client sends it again next time, as the protocol foresees).
   */
  register(hash: string, document: string, registrant: string): Promise<void> | undefined {
    if (this.manifest.has(hash)) return undefined;
    if (this.registered.get(hash) === undefined && !this.allowance.take(registrant)) return undefined;
    this.registered.set(hash, document, entryBytes(document));
    return this.shared?.set(hash, document, registrant);
  }

  /** Accounted bytes of this instance's registrations (the manifest is not counted: it is fixed at start-up). */
  get registeredBytes(): number {
    return this.registered.bytes;
  }

  /** How many documents the operator's manifest holds. */
  get manifestSize(): number {
    return this.manifest.size;
  }

  async close(): Promise<void> {
    await this.shared?.close();
  }
}

/** Default bound of an instance's registrations: 4 MiB accounted, about 2,000 documents of 1 KiB. */
export const PERSISTED_DOCUMENTS_BYTES = 4 * 1024 * 1024;
