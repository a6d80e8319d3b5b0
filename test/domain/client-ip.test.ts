import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config';
import { clientIp, normalizeIp, parseTrustProxy, rateLimitBucket } from '../../src/domain/client-ip';

type Row = [trustProxy: string | undefined, socket: string, xff: string | null, client: string];

const check = (rows: Row[]) =>
  it.each(rows)('TRUST_PROXY=%j, socket %s, X-Forwarded-For %j: the client is %s', (trust, socket, xff, client) => {
    expect(clientIp(socket, xff, trust)).toBe(client);
    expect(clientIp(socket, xff, parseTrustProxy(trust))).toBe(client);
  });

describe('without TRUST_PROXY the client is the socket address and X-Forwarded-For is ignored', () => {
  check([
    [undefined, '203.0.113.7', null, '203.0.113.7'],
    [undefined, '203.0.113.7', '198.51.100.1', '203.0.113.7'],
    ['', '203.0.113.7', '198.51.100.1, 10.0.0.1', '203.0.113.7'],
    ['0', '203.0.113.7', '198.51.100.1', '203.0.113.7'],
    [undefined, '::ffff:203.0.113.7', '198.51.100.1', '203.0.113.7'],
  ]);
});

describe('a hop count trusts that many hops from the right (socket first)', () => {
  check([
    ['1', '10.0.0.1', '198.51.100.1', '198.51.100.1'],
    // a client-written entry further left changes nothing
    ['1', '10.0.0.1', '6.6.6.6, 198.51.100.1', '198.51.100.1'],
    ['2', '10.0.0.1', '6.6.6.6, 198.51.100.1, 10.0.0.2', '198.51.100.1'],
    ['3', '10.0.0.1', '198.51.100.1, 10.0.0.3, 10.0.0.2', '198.51.100.1'],
    // fewer hops than configured: the leftmost address
    ['3', '10.0.0.1', '198.51.100.1', '198.51.100.1'],
    // no header: the socket
    ['1', '10.0.0.1', null, '10.0.0.1'],
    ['1', '10.0.0.1', '', '10.0.0.1'],
  ]);
});

describe('a CIDR list trusts the addresses inside it, walking from the right', () => {
  check([
    ['10.0.0.0/8', '10.0.0.1', '198.51.100.1', '198.51.100.1'],
    ['10.0.0.0/8', '10.0.0.1', '6.6.6.6, 198.51.100.1, 10.9.9.9', '198.51.100.1'],
    // a request that does not come from a trusted proxy: its header is the client's own words
    ['10.0.0.0/8', '203.0.113.7', '198.51.100.1', '203.0.113.7'],
    ['10.0.0.0/8, 192.168.0.0/16', '192.168.1.1', '198.51.100.1, 10.1.1.1', '198.51.100.1'],
    ['10.0.0.1', '10.0.0.1', '198.51.100.1', '198.51.100.1'],
    ['10.0.0.1', '10.0.0.2', '198.51.100.1', '10.0.0.2'],
    // IPv6 proxies and clients
    ['fd00::/8', 'fd12::1', '2001:db8::7', '2001:db8::7'],
    ['fd00::/8,10.0.0.0/8', 'fd12::1', '2001:db8::7, 10.1.1.1', '2001:db8::7'],
    ['::1', '::1', '2001:DB8:0:0::7', '2001:db8::7'],
    // every hop trusted: the leftmost address
    ['10.0.0.0/8', '10.0.0.1', '10.0.0.2', '10.0.0.2'],
    // IPv4-mapped socket and entries compare as IPv4, rules written either way
    ['10.0.0.0/8', '::ffff:10.0.0.1', '::ffff:198.51.100.1', '198.51.100.1'],
    ['::ffff:10.0.0.0/104', '10.0.0.1', '198.51.100.1', '198.51.100.1'],
    // ports and brackets some proxies add
    ['10.0.0.0/8', '10.0.0.1', '198.51.100.1:5678', '198.51.100.1'],
    ['10.0.0.0/8', '10.0.0.1', '[2001:db8::7]:443', '2001:db8::7'],
  ]);
});

describe('garbage in X-Forwarded-For never throws and stops the walk at the last good hop', () => {
  check([
    ['1', '10.0.0.1', 'not-an-ip', '10.0.0.1'],
    ['2', '10.0.0.1', '198.51.100.1, , 10.0.0.2', '10.0.0.2'],
    ['10.0.0.0/8', '10.0.0.1', 'unknown', '10.0.0.1'],
    ['10.0.0.0/8', '10.0.0.1', ',,,', '10.0.0.1'],
    ['10.0.0.0/8', '10.0.0.1', '1.2.3.4.5', '10.0.0.1'],
    ['10.0.0.0/8', '10.0.0.1', '999.1.1.1', '10.0.0.1'],
    ['10.0.0.0/8', '10.0.0.1', 'fe80::1%eth0', 'fe80::1'],
    ['10.0.0.0/8', '10.0.0.1', `${'1'.repeat(5000)}`, '10.0.0.1'],
  ]);

  it('holds for any header text', () => {
    const trusts = [undefined, '1', '3', '10.0.0.0/8, fd00::/8'].map(parseTrustProxy);
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), fc.constantFrom(...trusts), (xff, trust) => {
        const ip = clientIp('10.0.0.1', xff, trust);
        expect(normalizeIp(ip)).toBe(ip);
      }),
    );
  });
});

describe('parseTrustProxy validates TRUST_PROXY', () => {
  it.each(['10.0.0.0/33', 'fd00::/129', '10.0.0.0/8,', 'proxy.local', '10.0.0.0/8/8', 'fe80::1%eth0', '100', '10.0.0.0/255.0.0.0'])(
    'refuses %j with a TypeError naming the variable',
    (value) => {
      expect(() => parseTrustProxy(value)).toThrow(/TRUST_PROXY/);
    },
  );

  it('stops start-up with a one-line message naming TRUST_PROXY', () => {
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.0/33' })).toThrow(ConfigError);
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.0/33' })).toThrow(/^Invalid configuration: TRUST_PROXY .*"10\.0\.0\.0\/33"/);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, fd00::/8' }).trustProxy).toBe('10.0.0.0/8, fd00::/8');
  });
});

describe('rate-limit buckets', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:DB8:0:0:1::9', '2001:db8::/64'],
    ['::1', '::/64'],
    ['fe80::1%eth0', 'fe80::/64'],
  ])('%s is bucketed as %s', (ip, bucket) => {
    expect(rateLimitBucket(ip)).toBe(bucket);
  });

  it('puts every address of one IPv6 /64 in one bucket', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 4, maxLength: 4 }), (low) => {
        expect(rateLimitBucket(`2001:db8:aa:bb:${low.map((g) => g.toString(16)).join(':')}`)).toBe('2001:db8:aa:bb::/64');
      }),
    );
  });
});

describe('normalizeIp', () => {
  it.each([
    ['2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
    ['2001:db8:0:1:0:0:0:1', '2001:db8:0:1::1'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['::ffff:7b7b:7b7b', '123.123.123.123'],
    ['::', '::'],
    [' 198.51.100.1 ', '198.51.100.1'],
  ])('%j is %j', (text, normal) => {
    expect(normalizeIp(text)).toBe(normal);
  });
});
