import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { startServer as startServerProcess } from './server-process';

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
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-gpu',
    ],
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
  const server = await startServerProcess(
    { LOG_LEVEL: 'debug', ECB_BASE_URL: 'http://127.0.0.1:9/ecb', ...env },
    { inheritEnv: false, timeoutMs: 30_000 },
  );
  return { base: server.base, process: server.child, logs: server.logs, stop: () => void server.kill() };
}
