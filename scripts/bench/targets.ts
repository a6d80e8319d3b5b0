import assert from 'node:assert/strict';

/** What the server child (servers.ts) reports once both servers listen on loopback. */
export interface ServersReady {
  appPort: number;
  baselinePort: number;
  /** A business-plan key: its monthly quota (2,000,000) is far above what one run sends. */
  key: string;
  /** The exact body bytes GET /v1/convert answered, which the baseline serves. */
  convertBody: string;
  contentType: string;
}

export interface Target {
  /** Short name for `--only`. */
  id: string;
  label: string;
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  /** Throws unless the parsed answer is the one this target must give. */
  check(json: unknown, text: string): void;
}

export const CONVERT_PATH = '/v1/convert?value=12.5&from=inch&to=centimeter';

// Written from the definition of the inch (exactly 2.54 cm), not copied from the app's output.
const CONVERSION = { category: 'length', input: { unit: 'inch', value: '12.5' }, result: { unit: 'centimeter', value: '31.75' } };

// Selects the same fields as the REST body, so both rows resolve and serialize the same object.
const CONVERT_QUERY = '{ convert(value: "12.5", from: "inch", to: "centimeter") { category input { unit value } result { unit value } } }';

export function benchTargets(s: ServersReady): Target[] {
  const app = `http://127.0.0.1:${s.appPort}`;
  const auth = { authorization: `Bearer ${s.key}` };
  return [
    {
      id: 'baseline',
      label: 'baseline: node:http, same bytes',
      url: `http://127.0.0.1:${s.baselinePort}${CONVERT_PATH}`,
      method: 'GET',
      headers: {},
      check: (json, text) => {
        assert.equal(text, s.convertBody, 'baseline body differs from the app body');
        assert.deepEqual(json, { data: CONVERSION });
      },
    },
    { id: 'rest', label: 'GET /v1/convert', url: app + CONVERT_PATH, method: 'GET', headers: auth, check: (json) => assert.deepEqual(json, { data: CONVERSION }) },
    {
      id: 'graphql',
      label: 'POST /graphql convert',
      url: `${app}/graphql`,
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ query: CONVERT_QUERY }),
      check: (json) => assert.deepEqual(json, { data: { convert: CONVERSION } }),
    },
    {
      id: 'units',
      label: 'GET /v1/units/meter (public)',
      url: `${app}/v1/units/meter`,
      method: 'GET',
      headers: {},
      check: (json) => assert.equal((json as { data?: { id?: unknown } }).data?.id, 'meter'),
    },
  ];
}

/** One real request over loopback; returns the body that every response of the run must repeat. */
export async function verifyTarget(target: Target): Promise<string> {
  const response = await fetch(target.url, { method: target.method, headers: target.headers, body: target.body });
  const text = await response.text();
  try {
    assert.equal(response.status, 200, `status ${response.status}`);
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/, 'content-type');
    target.check(JSON.parse(text), text);
  } catch (error) {
    throw new Error(`${target.label} is not answering as expected (${(error as Error).message}); body: ${text.slice(0, 300)}`);
  }
  return text;
}
