import { BlockList, isIP } from 'node:net';

/**
 * Who the client is, for the per-IP rate limit. X-Forwarded-For is whatever the client writes, so
 * it counts only as far as TRUST_PROXY vouches for the hops that appended to it: the chain is read
 * from the right (the socket, then the last XFF entry, ...) and the first hop that is not a
 * trusted proxy is the client. Pure, and never throws on what a client sends.
 */
export type TrustProxy =
  | { readonly kind: 'none' }
  /** The socket and the next `hops - 1` entries from the right are proxies (Express 'trust proxy' = N). */
  | { readonly kind: 'hops'; readonly hops: number }
  /** Every address inside these CIDRs is a proxy. */
  | { readonly kind: 'cidrs'; readonly trusted: BlockList };

const NONE: TrustProxy = { kind: 'none' };

/** Parses TRUST_PROXY once, at start-up: a hop count, or a comma list of IPv4/IPv6 addresses and CIDRs. */
export function parseTrustProxy(value: string | undefined): TrustProxy {
  const text = value?.trim() ?? '';
  if (text === '') return NONE;
  if (/^\d+$/.test(text)) {
    const hops = Number(text);
    if (hops > 99) throw new TypeError(`TRUST_PROXY hop count must be 0..99, got ${text}`);
    return hops === 0 ? NONE : { kind: 'hops', hops };
  }
  const trusted = new BlockList();
  for (const item of text.split(',').map((s) => s.trim())) addTrusted(trusted, item);
  return { kind: 'cidrs', trusted };
}

function addTrusted(list: BlockList, item: string): void {
  const match = /^([^/]+)(?:\/(\d{1,3}))?$/.exec(item);
  const family = match ? isIP(match[1]!) : 0;
  const bits = family === 4 ? 32 : 128;
  const prefix = match?.[2] === undefined ? bits : Number(match[2]);
  if (!match || family === 0 || match[1]!.includes('%') || prefix > bits) {
    throw new TypeError(`TRUST_PROXY entry ${JSON.stringify(item)} is not an IP address or CIDR (like 10.0.0.0/8 or fd00::/8)`);
  }
  // Client addresses are compared in their IPv4 form (see normalizeIp), so a rule written in the
  // IPv4-mapped form becomes an IPv4 rule.
  const address = normalizeIp(match[1]!)!;
  if (family === 6 && isIP(address) === 4 && prefix >= 96) list.addSubnet(address, prefix - 96, 'ipv4');
  else list.addSubnet(address, prefix, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * The client's address: the socket's without a trusted proxy; otherwise the first untrusted hop
 * from the right. An XFF entry that is not an address ends the walk at the last good hop, so
 * garbage can neither throw nor pick a rate-limit bucket of its choosing.
 */
export function clientIp(socketAddress: string, xForwardedFor: string | null, trustProxy: TrustProxy | string | undefined): string {
  const trust = typeof trustProxy === 'object' ? trustProxy : parseTrustProxy(trustProxy);
  let client = normalizeIp(socketAddress) ?? socketAddress;
  if (trust.kind === 'none' || !xForwardedFor) return client;
  const chain = xForwardedFor.split(',');
  for (let hop = 0; isTrusted(trust, client, hop); hop++) {
    const entry = chain.pop();
    const previous = entry === undefined ? undefined : normalizeIp(entry);
    if (previous === undefined) return client;
    client = previous;
  }
  return client;
}

/** Whether the socket peer is a proxy TRUST_PROXY vouches for (its X-Forwarded-* headers count). */
export function isTrustedProxy(trust: TrustProxy, socketAddress: string): boolean {
  return isTrusted(trust, normalizeIp(socketAddress) ?? socketAddress, 0);
}

function isTrusted(trust: TrustProxy, address: string, hop: number): boolean {
  if (trust.kind === 'hops') return hop < trust.hops;
  if (trust.kind === 'none') return false;
  const family = isIP(address);
  return family !== 0 && trust.trusted.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * An address in one canonical text form, or undefined when it is none: IPv4 as dotted quad,
 * IPv4-mapped IPv6 (::ffff:1.2.3.4) as IPv4, other IPv6 compressed and lower-case without a zone.
 * Tolerates the port and brackets some proxies write (`1.2.3.4:5678`, `[2001:db8::1]:443`).
 */
export function normalizeIp(text: string): string | undefined {
  let address = text.trim();
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(address);
  if (bracketed) address = bracketed[1]!;
  else if (/^[\d.]+:\d{1,5}$/.test(address)) address = address.slice(0, address.indexOf(':'));
  if (address.length > 64) return undefined;
  const family = isIP(address);
  if (family === 4) return address;
  if (family !== 6) return undefined;
  const groups = ipv6Groups(address.replace(/%.*$/, ''));
  if (groups === undefined) return undefined;
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return [groups[6]! >> 8, groups[6]! & 255, groups[7]! >> 8, groups[7]! & 255].join('.');
  }
  return compress(groups);
}

/**
 * The rate-limit bucket of a client address: an IPv4 address is its own bucket; IPv6 is bucketed
 * by its /64, because one subscriber usually gets a whole /64 and could otherwise rotate through
 * 2^64 addresses to escape the limit.
 */
export function rateLimitBucket(ip: string): string {
  const normalized = normalizeIp(ip);
  if (normalized === undefined || isIP(normalized) === 4) return normalized ?? ip;
  const groups = ipv6Groups(normalized)!;
  return `${compress([...groups.slice(0, 4), 0, 0, 0, 0])}/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (as isIP accepts it, zone removed). */
function ipv6Groups(address: string): number[] | undefined {
  // A dotted-quad tail (::ffff:1.2.3.4, 64:ff9b::1.2.3.4) becomes two hex groups first.
  const text = address.replace(
    /(\d+)\.(\d+)\.(\d+)\.(\d+)$/,
    (_, a: string, b: string, c: string, d: string) => `${((+a << 8) | +b).toString(16)}:${((+c << 8) | +d).toString(16)}`,
  );
  const [head, tail] = text.split('::') as [string, string?];
  const parse = (part: string | undefined) => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const left = parse(head);
  const right = parse(tail);
  const groups = tail === undefined ? left : [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
  return groups.length === 8 && groups.every((g) => g >= 0 && g <= 0xffff) ? groups : undefined;
}

/** RFC 5952 text: lower-case hex, the longest run (>= 2) of zero groups as `::`. */
function compress(groups: number[]): string {
  let best = { start: -1, length: 1 };
  for (let i = 0; i < 8; i++) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > best.length) best = { start: i, length: j - i };
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best.start < 0) return hex.join(':');
  return `${hex.slice(0, best.start).join(':')}::${hex.slice(best.start + best.length).join(':')}`;
}
