import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium; playwright-core never downloads a browser. */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * Whether the browser tests run. Without Chromium they skip with a message, except in CI
 * (env CI set), where a missing browser is a failure: .ci/run installs it.
 */
export function browserAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.CI) throw new Error(`${CHROMIUM} is missing and CI is set: the browser tests must run (apt-get install -y chromium).`);
  console.warn(`Skipping the browser tests: ${CHROMIUM} is not installed (apt-get install -y chromium).`);
  return false;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-gpu'],
  });
}

export interface RunningServer {
  base: string;
  process: ChildProcess;
  /** Everything the server wrote (its JSON log lines). */
  logs(): string;
  stop(): void;
}

/** The real server (`src/main.ts`, as `npm start` runs it) on a free port, logging at debug. */
export async function startServer(env: Record<string, string>): Promise<RunningServer> {
  let logs = '';
  const child = spawn(path.resolve('node_modules/.bin/tsx'), ['src/main.ts'], {
    env: { PATH: process.env.PATH, PORT: '0', LOG_LEVEL: 'debug', ECB_BASE_URL: 'http://127.0.0.1:9/ecb', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr!.on('data', (chunk) => (logs += chunk));
  const base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${logs}`)), 30_000);
    child.once('exit', (code) => reject(new Error(`server exited with ${code}:\n${logs}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      logs += chunk;
      const port = /listening on http:\/\/[\d.]+:(\d+)/.exec(logs)?.[1];
      if (port) {
        clearTimeout(timer);
        resolve(`http://127.0.0.1:${port}`);
      }
    });
  });
  return { base, process: child, logs: () => logs, stop: () => void child.kill('SIGKILL') };
}
