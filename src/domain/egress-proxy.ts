import { isIP } from 'node:net';

/**
 * The forward proxy outbound requests go through, as HTTPS_PROXY, HTTP_PROXY and NO_PROXY (or
 * their lower-case forms, which win) say. The rules are undici's EnvHttpProxyAgent's, so the rates
 * fetch (which uses it) and the webhook and client document requests (which use these) agree:
 * an https:// URL goes through HTTPS_PROXY, else HTTP_PROXY; an http:// URL through HTTP_PROXY;
 * a host that NO_PROXY names is reached directly.
 */
export interface EgressProxy {
  /** HTTP_PROXY: the proxy of http:// requests, and of https:// ones when HTTPS_PROXY is not set. */
  httpProxy: string | undefined;
  /** HTTPS_PROXY: the proxy of https:// requests. */
  httpsProxy: string | undefined;
  /** NO_PROXY: the hosts reached directly. */
  noProxy: readonly NoProxyEntry[];
}

/** One NO_PROXY entry: a host (lower case, no brackets) that also covers its subdomains, on one port or any (0); `*` is every host. */
export interface NoProxyEntry {
  host: string;
  port: number;
}

export const NO_EGRESS_PROXY: EgressProxy = { httpProxy: undefined, httpsProxy: undefined, noProxy: [] };

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

/**
 * NO_PROXY as written: entries separated by commas or white space, each a host name or IP address,
 * optionally with a leading `.` or `*.` (ignored: a name always covers its subdomains) and a
 * `:port`; an IPv6 address with a port is written in brackets (`[::1]:8080`); `*` alone is every host.
 */
export function parseNoProxy(text: string): NoProxyEntry[] {
  return text
    .split(/[,\s]+/)
    .filter((entry) => entry !== '')
    .map((entry) => {
      const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
      if (bracketed) return { host: bracketed[1]!.toLowerCase(), port: Number(bracketed[2] ?? 0) };
      const withPort = isIP(entry) === 6 ? null : /^(.+):(\d+)$/.exec(entry);
      const host = (withPort ? withPort[1]! : entry).replace(/^\*?\./, '').toLowerCase();
      return { host, port: withPort ? Number(withPort[2]) : 0 };
    });
}

/** NO_PROXY written back in the form undici's EnvHttpProxyAgent reads (brackets around IPv6 hosts; `*` alone when any entry is `*`). */
export function noProxyText(entries: readonly NoProxyEntry[]): string {
  if (entries.some((entry) => entry.host === '*')) return '*';
  return entries.map(({ host, port }) => `${isIP(host) === 6 ? `[${host}]` : host}${port ? `:${port}` : ''}`).join(',');
}

/** Whether NO_PROXY sends requests to `host` (a URL's hostname, brackets or not) on `port` directly. */
export function bypassesProxy(host: string, port: number, entries: readonly NoProxyEntry[]): boolean {
  const name = host.replace(/^\[|\]$/g, '').toLowerCase();
  return entries.some(
    (entry) =>
      entry.host === '*' || ((entry.port === 0 || entry.port === port) && (name === entry.host || name.endsWith(`.${entry.host}`))),
  );
}

/** The proxy URL a request to `url` goes through, or undefined when it goes directly. */
export function proxyFor(url: URL, egress: EgressProxy): string | undefined {
  const proxy =
    url.protocol === 'https:' ? (egress.httpsProxy ?? egress.httpProxy) : url.protocol === 'http:' ? egress.httpProxy : undefined;
  if (proxy === undefined) return undefined;
  const port = Number(url.port) || DEFAULT_PORTS[url.protocol] || 0;
  return bypassesProxy(url.hostname, port, egress.noProxy) ? undefined : proxy;
}
