import { DEFAULT_NEGOTIATED_PROTOCOL_VERSION, PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';
import { quoteInput } from '../domain/quote-input';

/**
 * The MCP revisions under which a POST may carry a JSON-RPC batch: 2025-06-18 removed batching, so
 * under it, later revisions and any revision this list does not know, a batch is refused.
 */
const BATCHING_REVISIONS: ReadonlySet<string> = new Set(['2024-10-07', '2024-11-05', '2025-03-26']);

/** What a POST body holds: the messages it spends a request of the rate limit for, or why it is refused. */
export type MessagesVerdict = { messages: number } | { refusal: string };

/**
 * Counts the JSON-RPC messages of a POST body, every one of which spends a request of the key's
 * rate limit. A batch is refused under a revision without batches (the revision is the
 * MCP-Protocol-Version header, else the one a message of the body claims: an `initialize`'s
 * `protocolVersion` or a 2026-07-28 request's `_meta` envelope, else the transport's default,
 * 2025-03-26) and when two of its requests share an id, since each request is
 * answered once by its id. A body that is not JSON counts one message: the transport refuses it.
 */
export function judgeMessages(body: string, headerRevision: string | null): MessagesVerdict {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { messages: 1 };
  }
  if (!Array.isArray(parsed)) return { messages: 1 };
  const revision = headerRevision ?? claimedRevision(parsed) ?? DEFAULT_NEGOTIATED_PROTOCOL_VERSION;
  if (!BATCHING_REVISIONS.has(revision)) {
    return {
      refusal: `Invalid Request: MCP protocol version ${quoteInput(revision)} has no JSON-RPC batches; send one message per request.`,
    };
  }
  const repeated = repeatedId(parsed);
  if (repeated !== undefined) {
    return {
      refusal: `Invalid Request: the batch uses the request id ${typeof repeated === 'string' ? quoteInput(repeated) : repeated} more than once; each request of a batch needs its own id.`,
    };
  }
  return { messages: Math.max(1, parsed.length) };
}

/** The revision a message of a batch claims: the one an `initialize` asks for, or a per-request `_meta` envelope's. */
function claimedRevision(messages: unknown[]): string | undefined {
  for (const message of messages) {
    if (!isRecord(message) || !isRecord(message.params)) continue;
    const { params } = message;
    if (message.method === 'initialize' && typeof params.protocolVersion === 'string') return params.protocolVersion;
    const claimed = isRecord(params._meta) ? params._meta[PROTOCOL_VERSION_META_KEY] : undefined;
    if (typeof claimed === 'string') return claimed;
  }
  return undefined;
}

/** The first id two requests of a batch share (1 and "1" are different ids, as JSON-RPC reads them). */
function repeatedId(messages: unknown[]): string | number | undefined {
  const seen = new Set<string>();
  for (const message of messages) {
    if (!isRecord(message) || typeof message.method !== 'string') continue;
    const { id } = message;
    if (typeof id !== 'string' && typeof id !== 'number') continue;
    const seenAs = `${typeof id}:${id}`;
    if (seen.has(seenAs)) return id;
    seen.add(seenAs);
  }
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
