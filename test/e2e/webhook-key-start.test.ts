import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/** Runs the server to its exit (it must exit by itself); its exit code and output. */
function startToExit(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { env: { ...process.env, PORT: '0', ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
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

describe('webhook secrets in production', () => {
  it('a production server without WEBHOOK_SECRET_KEY refuses to start, in one line, and leaves no key file behind', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'webhook-key-'));
    try {
      const run = await startToExit({ API_ENV: 'production', DATA_DIR: dir, DATABASE_URL: path.join(dir, 'measurement.db') });
      expect(run.code).toBe(1);
      expect(run.stderr.trim()).toBe('Invalid configuration: WEBHOOK_SECRET_KEY is required with API_ENV=production (32 bytes as base64 or hex, e.g. openssl rand -base64 32)');
      expect(fs.existsSync(path.join(dir, 'webhook-secret.key'))).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
