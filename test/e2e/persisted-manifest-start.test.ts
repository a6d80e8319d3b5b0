import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { documentHash } from '../../src/domain/persisted-query';
import { built } from '../helpers/built';

const FIXTURE = path.resolve('test/fixtures/ecb/hist-wide.csv');

/** Runs the server to its exit (it must exit by itself); its exit code and output. */
function startToExit(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [built('main')], {
      env: { ...process.env, PORT: '0', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // Only stops a hung test: a server that listens instead of exiting is a failure.
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

describe('a persisted-documents manifest the server cannot use at start', () => {
  it('a hash that is not its document: one line naming PERSISTED_DOCUMENTS, the file and the entry on stderr, exit 1', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'manifest-start-'));
    const file = path.join(dir, 'persisted-documents.json');
    const wrong = documentHash('{ units { id } }');
    writeFileSync(file, JSON.stringify({ [wrong]: '{ categories { id } }' }));
    const { code, stderr } = await startToExit({
      DATA_DIR: dir,
      PERSISTED_DOCUMENTS: file,
      RATES_FILE: FIXTURE,
      ECB_BASE_URL: 'http://127.0.0.1:9/ecb',
      LOG_LEVEL: 'silent',
    });
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toEqual([
      `PERSISTED_DOCUMENTS: ${file}: ${wrong} is not the SHA-256 of its document (that is ${documentHash('{ categories { id } }')})`,
    ]);
  });
});
