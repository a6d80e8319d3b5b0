import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MCP_PATH } from '../../src/http/routes';
import { API_VERSION } from '../../src/version';

const serverJson = JSON.parse(readFileSync('server.json', 'utf8'));

describe('server.json for the MCP registry', () => {
  it('names this version and a Streamable HTTP remote at /mcp taking the key as a secret Bearer header', () => {
    expect(serverJson.version).toBe(API_VERSION);
    expect(serverJson.name).toMatch(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/);
    // The official registry's limit on a description.
    expect(serverJson.description.length).toBeLessThanOrEqual(100);
    const [remote] = serverJson.remotes;
    expect(remote.type).toBe('streamable-http');
    expect(new URL(remote.url.replace('{host}', 'example.org')).pathname).toBe(MCP_PATH);
    expect(remote.headers).toEqual([
      expect.objectContaining({ name: 'Authorization', isRequired: true, isSecret: true, value: 'Bearer {api_key}' }),
    ]);
  });
});
