import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { noProxyText, parseNoProxy, proxyFor, type EgressProxy } from '../../src/domain/egress-proxy';

const HTTPS = 'http://https-proxy.internal:3128';
const HTTP = 'http://http-proxy.internal:3128';

const both = (noProxy: string): EgressProxy => ({ httpsProxy: HTTPS, httpProxy: HTTP, noProxy: parseNoProxy(noProxy) });

describe('which proxy a request goes through', () => {
  const cases: [url: string, egress: EgressProxy, proxy: string | undefined][] = [
    ['https://api.example/x', both(''), HTTPS],
    ['http://api.example/x', both(''), HTTP],
    ['https://api.example/x', { httpsProxy: undefined, httpProxy: HTTP, noProxy: [] }, HTTP],
    ['http://api.example/x', { httpsProxy: HTTPS, httpProxy: undefined, noProxy: [] }, undefined],
    ['https://api.example/x', both('*'), undefined],
    ['https://api.example/x', both('other.example, *'), undefined],
    ['https://api.example/x', both('api.example'), undefined],
    ['https://API.Example/x', both('api.EXAMPLE'), undefined],
    ['https://hooks.api.example/x', both('api.example'), undefined],
    ['https://hooks.api.example/x', both('.api.example'), undefined],
    ['https://hooks.api.example/x', both('*.api.example'), undefined],
    ['https://notapi.example/x', both('api.example'), HTTPS],
    ['https://api.example.org/x', both('api.example'), HTTPS],
    ['https://api.example/x', both('api.example:8443'), HTTPS],
    ['https://api.example:8443/x', both('api.example:8443'), undefined],
    ['https://api.example/x', both('api.example:443'), undefined],
    ['http://10.1.2.3:8080/x', both('10.1.2.3'), undefined],
    ['http://10.1.2.30/x', both('10.1.2.3'), HTTP],
    ['https://[::1]:8443/x', both('::1'), undefined],
    ['https://[::1]:8443/x', both('[::1]:8443'), undefined],
    ['https://[::1]:8443/x', both('[::1]:9443'), HTTPS],
    ['https://a.example/x', both('b.example a.example'), undefined],
  ];
  it.each(cases)('%s with %j goes through %s', (url, egress, proxy) => {
    expect(proxyFor(new URL(url), egress)).toBe(proxy);
  });

  it("writes NO_PROXY back in the form undici's EnvHttpProxyAgent reads", () => {
    expect(noProxyText(parseNoProxy(' .corp.example, 10.0.0.1:8080 ::1 [fd00::2]:443,'))).toBe(
      'corp.example,10.0.0.1:8080,[::1],[fd00::2]:443',
    );
    expect(noProxyText(parseNoProxy('a.example,*'))).toBe('*');
    expect(noProxyText([])).toBe('');
  });
});

describe('HTTPS_PROXY, HTTP_PROXY and NO_PROXY in the configuration', () => {
  it('reads none by default', () => {
    expect(loadConfig({}).egressProxy).toEqual({ httpsProxy: undefined, httpProxy: undefined, noProxy: [] });
  });

  it('reads the upper-case forms, and lets the lower-case forms win', () => {
    expect(loadConfig({ HTTPS_PROXY: HTTPS, HTTP_PROXY: HTTP, NO_PROXY: 'a.example' }).egressProxy).toEqual({
      httpsProxy: HTTPS,
      httpProxy: HTTP,
      noProxy: [{ host: 'a.example', port: 0 }],
    });
    const lower = loadConfig({
      HTTPS_PROXY: 'http://upper:1',
      https_proxy: HTTPS,
      HTTP_PROXY: 'http://upper:2',
      http_proxy: HTTP,
      NO_PROXY: 'upper.example',
      no_proxy: 'lower.example',
    });
    expect(lower.egressProxy).toEqual({ httpsProxy: HTTPS, httpProxy: HTTP, noProxy: [{ host: 'lower.example', port: 0 }] });
  });

  it('refuses a proxy that is not an http(s) URL, naming the variable and hiding its password', () => {
    expect(() => loadConfig({ HTTPS_PROXY: 'proxy.internal:3128' })).toThrow(/HTTPS_PROXY must be a proxy url/);
    expect(() => loadConfig({ http_proxy: 'socks5://proxy.internal:1080' })).toThrow(/http_proxy must be a proxy url/);
    const refusal = (() => {
      try {
        loadConfig({ HTTP_PROXY: 'ftp://user:hunter2@proxy.internal' });
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(refusal).toContain('HTTP_PROXY');
    expect(refusal).toContain('ftp://user:***@proxy.internal');
    expect(refusal).not.toContain('hunter2');
  });
});
