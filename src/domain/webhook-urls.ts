import { BlockList, isIP } from 'node:net';
import { ApiError } from './errors';

/**
 * Where an account's webhooks may be sent. In production only `https://` URLs whose host resolves
 * to public addresses: never loopback, private, link-local, unique-local, shared (CGNAT),
 * multicast, reserved or unspecified ones, so a webhook cannot be aimed at the servers' own
 * network. The addresses are checked when the endpoint is added and again on every delivery,
 * against the address actually connected to (a name may resolve elsewhere later: DNS rebinding).
 * Development allows `http://` and any address (a local receiver in tests).
 */
export interface WebhookUrlPolicy {
  /** Only `https://` URLs. */
  httpsOnly: boolean;
  /** Only hosts whose every address is public. */
  publicAddressesOnly: boolean;
}

export function webhookUrlPolicy(apiEnv: 'development' | 'production'): WebhookUrlPolicy {
  return apiEnv === 'production' ? { httpsOnly: true, publicAddressesOnly: true } : { httpsOnly: false, publicAddressesOnly: false };
}

const MAX_URL_LENGTH = 2048;

const NOT_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // shared address space (CGNAT)
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local (cloud metadata services live here)
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique-local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv6');
}

/**
 * Whether `address` (an IPv4 or IPv6 literal) is a public unicast address. An IPv6 address that
 * carries an IPv4 one is judged by every IPv4 address it carries, since that is where its packets
 * go: mapped, translated, compatible and NAT64 by their last 32 bits, 6to4 by bits 16 to 47, Teredo
 * by its server (bits 32 to 63) and its client (the last 32 bits, inverted).
 */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 4) return !NOT_PUBLIC.check(bare, 'ipv4');
  if (family !== 6) return false;
  const groups = ipv6Groups(bare);
  if (groups === undefined) return false;
  const embedded = embeddedIpv4(groups);
  if (embedded.length > 0) return embedded.every((ipv4) => !NOT_PUBLIC.check(ipv4, 'ipv4'));
  return !NOT_PUBLIC.check(bare, 'ipv6');
}

/** The IPv4 addresses an IPv6 address (as its eight 16-bit groups) carries, by its prefix; none for any other. */
function embeddedIpv4(g: readonly number[]): string[] {
  const zeros = (from: number, to: number) => g.slice(from, to).every((group) => group === 0);
  const last = ipv4Of(g[6]!, g[7]!);
  if (zeros(0, 5) && (g[5] === 0 || g[5] === 0xffff)) return [last]; // ::a.b.c.d, ::ffff:a.b.c.d
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return [last]; // ::ffff:0:a.b.c.d (translated)
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return [last]; // 64:ff9b::/96 (NAT64)
  if (g[0] === 0x2002) return [ipv4Of(g[1]!, g[2]!)]; // 2002::/16 (6to4)
  if (g[0] === 0x2001 && g[1] === 0) return [ipv4Of(g[2]!, g[3]!), ipv4Of(g[6]! ^ 0xffff, g[7]! ^ 0xffff)]; // 2001::/32 (Teredo)
  return [];
}

function ipv4Of(high: number, low: number): string {
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

/** The eight 16-bit groups of an IPv6 literal (isIP says it is one): `::` expanded, a trailing dotted IPv4 read as two groups. */
function ipv6Groups(ipv6: string): number[] | undefined {
  let text = ipv6;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const read = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const front = read(head);
  const back = tail === undefined ? [] : read(tail);
  const groups = tail === undefined ? front : [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
  return groups.length === 8 && groups.every((group) => Number.isInteger(group) && group >= 0 && group <= 0xffff) ? groups : undefined;
}

/** A webhook URL as written, checked for its form (not yet its addresses): INVALID_REQUEST with param `url` otherwise. */
export function parseWebhookUrl(text: string, policy: WebhookUrlPolicy): URL {
  const refuse = (why: string) =>
    new ApiError('INVALID_REQUEST', `The webhook URL ${JSON.stringify(text.slice(0, 100))} ${why}`, { param: 'url' });
  if (text.length > MAX_URL_LENGTH) throw refuse(`is longer than ${MAX_URL_LENGTH} characters.`);
  if (!URL.canParse(text)) throw refuse('is not an absolute URL.');
  const url = new URL(text);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refuse('must start with https:// (or http:// in development).');
  if (policy.httpsOnly && url.protocol !== 'https:') throw refuse('must use https:// (API_ENV=production).');
  if (url.username !== '' || url.password !== '') throw refuse('must not carry a user name or password.');
  if (url.hash !== '') throw refuse('must not have a #fragment.');
  if (url.hostname === '') throw refuse('has no host.');
  return url;
}

/** The addresses of a URL's host that break the policy (an IP literal is its own address). */
export function refusedAddresses(addresses: readonly string[], policy: WebhookUrlPolicy): string[] {
  if (!policy.publicAddressesOnly) return [];
  return addresses.filter((address) => !isPublicAddress(address));
}

/**
 * The refusal of a host that resolves to addresses the policy forbids, or to none. It names no
 * address a name resolved to: those describe the servers' own network, which the caller may not map.
 */
export function addressRefusal(url: URL, addresses: readonly string[]): ApiError {
  const host = url.hostname;
  const literal = isIP(host.replace(/^\[|\]$/g, '')) !== 0;
  const refusedWhy = literal ? 'that is not a public address' : 'that resolves to a non-public address';
  const why =
    addresses.length === 0
      ? `has a host (${host}) that does not resolve to any address.`
      : `has a host (${host}) ${refusedWhy}: loopback, private, link-local and other non-public addresses are refused in production.`;
  return new ApiError('INVALID_REQUEST', `The webhook URL ${JSON.stringify(url.href.slice(0, 100))} ${why}`, { param: 'url' });
}
