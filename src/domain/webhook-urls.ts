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

/** Whether `address` (an IPv4 or IPv6 literal) is a public unicast address; IPv4 inside IPv6 (mapped, NAT64, compatible) is judged as IPv4. */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 4) return !NOT_PUBLIC.check(bare, 'ipv4');
  if (family !== 6) return false;
  const embedded = embeddedIpv4(bare);
  if (embedded !== undefined) return !NOT_PUBLIC.check(embedded, 'ipv4');
  return !NOT_PUBLIC.check(bare, 'ipv6');
}

/** The IPv4 address inside ::ffff:a.b.c.d, ::a.b.c.d and 64:ff9b::a.b.c.d (dotted or hex), if any. */
function embeddedIpv4(ipv6: string): string | undefined {
  const lower = ipv6.toLowerCase();
  const match = /^(?:::ffff:|::|64:ff9b::)(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/.exec(lower);
  if (!match) return undefined;
  if (match[1] !== undefined) return match[1];
  const high = parseInt(match[2]!, 16);
  const low = parseInt(match[3]!, 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
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

/** The refusal of a host that resolves to addresses the policy forbids, or to none. */
export function addressRefusal(url: URL, addresses: readonly string[], refused: readonly string[]): ApiError {
  const host = url.hostname;
  const why =
    addresses.length === 0
      ? `has a host (${host}) that does not resolve to any address.`
      : `has a host (${host}) that resolves to ${refused.join(', ')}: loopback, private, link-local and other non-public addresses are refused in production.`;
  return new ApiError('INVALID_REQUEST', `The webhook URL ${JSON.stringify(url.href.slice(0, 100))} ${why}`, { param: 'url' });
}
