import { createHash } from 'node:crypto';

/** How many prices are remembered: a client sends the same few documents; past this, the oldest go first. */
const REMEMBERED_PRICES = 10_000;

/**
 * Prices of documents whose price reads no variable (price.ts), by the SHA-256 of their text and
 * the operation's name, so that a document sent again, by POST, GET or a persisted document's hash,
 * spends its price before it is parsed: one over the whole limit, or over what the window has
 * left, is refused without being parsed or validated again (documents over about 1,600 tokens are
 * not kept parsed, document-cache.ts). About 100 bytes an entry whatever the document's length.
 */
export class KnownPrices {
  private readonly prices = new Map<string, number>();

  /** The price remembered for this text and operation, if any. */
  get(text: string, operationName: string | null | undefined): number | undefined {
    return this.prices.get(keyOf(text, operationName));
  }

  remember(text: string, operationName: string | null | undefined, requests: number): void {
    const key = keyOf(text, operationName);
    if (this.prices.has(key)) return;
    if (this.prices.size >= REMEMBERED_PRICES) this.prices.delete(this.prices.keys().next().value!);
    this.prices.set(key, requests);
  }
}

const keyOf = (text: string, operationName: string | null | undefined): string =>
  createHash('sha256')
    .update(text)
    .update(`\0${operationName ?? ''}`)
    .digest('base64');
