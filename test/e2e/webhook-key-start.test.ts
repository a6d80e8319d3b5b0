import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { built } from '../helpers/built';

/** Runs the server until it logs its start line, then stops it; what it logged. */
function startAndStop(env: Record<string, string>): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [built('main')], {
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('"port":')) child.kill('SIGTERM');
    });
    // Only stops a hung test: a server that never starts is a failure.
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout });
    });
  });
}

describe('webhook secrets in production', () => {
  it('a production server without WEBHOOK_SECRET_KEY serves, warns once that webhooks need it, and leaves no key file behind', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'webhook-key-'));
    try {
      const run = await startAndStop({ API_ENV: 'production', DATA_DIR: dir, DATABASE_URL: path.join(dir, 'measurement.db') });
      expect(run.stdout).toContain('"port":');
      expect(run.stdout.match(/WEBHOOK_SECRET_KEY is not set/g)).toHaveLength(1);
      expect(fs.existsSync(path.join(dir, 'webhook-secret.key'))).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
