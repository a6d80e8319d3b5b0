import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);

/** A linter's JSON report of schema/openapi.json, whatever its exit code (non-zero when it finds anything). */
async function report(command: string, args: string[]): Promise<string> {
  try {
    // No telemetry and no update check: the test reaches nothing but the file.
    const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', SCARF_ANALYTICS: 'false' };
    return (await run(command, args, { maxBuffer: 16 * 1024 * 1024, env })).stdout;
  } catch (error) {
    return (error as { stdout: string }).stdout;
  }
}

/**
 * The committed document through the two linters clients' toolchains use. What is left, and why:
 * both linters' unused `Allow` header (405 is answered for methods a path does not have, so no
 * operation can declare it; the path descriptions say it).
 */
describe('schema/openapi.json under the linters', () => {
  it('spectral (spectral:oas): no error, and only the warnings accounted for', async () => {
    const found = JSON.parse(
      await report('node_modules/.bin/spectral', [
        'lint',
        'schema/openapi.json',
        '--ruleset',
        '.spectral.yaml',
        '--format',
        'json',
        '--quiet',
      ]),
    ) as { code: string; severity: number }[];
    expect(found.filter((p) => p.severity === 0)).toEqual([]);
    expect(found.map((p) => p.code).sort()).toEqual(['oas3-unused-component']);
  }, 60_000);

  it('@redocly/cli lint (recommended): no error, and only the warnings accounted for', async () => {
    const { problems } = JSON.parse(await report('node_modules/.bin/redocly', ['lint', 'schema/openapi.json', '--format', 'json'])) as {
      problems: { ruleId: string; severity: string }[];
    };
    expect(problems.filter((p) => p.severity === 'error')).toEqual([]);
    expect(problems.map((p) => p.ruleId).sort()).toEqual(['no-unused-components']);
  }, 60_000);
});
