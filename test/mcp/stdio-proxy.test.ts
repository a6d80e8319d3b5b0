import { describe, expect, it } from 'vitest';
import { remoteServerOf } from '../../src/mcp/stdio-proxy';

describe("the stdio server's configuration", () => {
  it('points at /mcp of the server given, and names a missing or malformed variable', () => {
    expect(remoteServerOf({ MEASUREMENT_API_URL: 'https://api.example/', MEASUREMENT_API_KEY: 'msr_live_abc' }).url.href).toBe(
      'https://api.example/mcp',
    );
    expect(remoteServerOf({ MEASUREMENT_API_URL: 'https://api.example/mcp', MEASUREMENT_API_KEY: 'msr_live_abc' }).url.href).toBe(
      'https://api.example/mcp',
    );
    expect(() => remoteServerOf({ MEASUREMENT_API_URL: 'https://api.example' })).toThrow(/^MEASUREMENT_API_KEY /);
    expect(() => remoteServerOf({ MEASUREMENT_API_URL: 'ftp://x', MEASUREMENT_API_KEY: 'msr_live_abc' })).toThrow(/^MEASUREMENT_API_URL /);
  });
});
