import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { built } from './built';

const run = promisify(execFile);

export interface ServerProcess {
  /** `http://127.0.0.1:<port>` */
  base: string;
  child: ChildProcess;
  /** Everything the server wrote so far (stdout and stderr). */
  logs(): string;
  /** SIGKILL to the whole process group (node and anything it started); resolves once it exited. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * Starts the real server (`node --max-semi-space-size=16 main.js`, the bundle `npm start` runs, built for this
 * test run: test/setup/built-entries.ts), in a process group of its own, with PORT=0 and the given
 * environment, and resolves when it logs "listening on http://…:PORT".
 * The caller must `kill()` it (afterAll), also when the test fails; `killAllServers()` does for all.
 */
export async function startServer(
  env: Record<string, string | undefined>,
  options: { timeoutMs?: number; inheritEnv?: boolean; imports?: readonly string[] } = {},
): Promise<ServerProcess> {
  // The young generation's size as `npm start` sets it (V8 takes it from the command line only);
  // `imports` are loaded after tsx (a test's probe inside the server).
  const imports = (options.imports ?? []).flatMap((file) => ['--import', file]);
  const child = spawn(process.execPath, ['--max-semi-space-size=16', ...imports, built('main')], {
    // inheritEnv false: only PATH and what is given (a test that must not see the runner's variables).
    // RATE_SOURCES=ecb unless given: the other publishers' real URLs are never fetched from a test.
    env: {
      ...(options.inheritEnv === false ? { PATH: process.env.PATH } : process.env),
      PORT: '0',
      LOG_LEVEL: 'info',
      RATE_SOURCES: 'ecb',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let logs = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const server: ServerProcess = {
    base: '',
    child,
    logs: () => logs,
    async kill(signal = 'SIGKILL') {
      if (child.exitCode === null && child.signalCode === null) {
        try {
          process.kill(-child.pid!, signal);
        } catch {
          // already gone
        }
      }
      await exited;
    },
  };
  running.add(server);
  void exited.then(() => running.delete(server));
  child.stderr!.on('data', (chunk: Buffer) => (logs += chunk.toString()));
  let listening = false;
  server.base = await new Promise<string>((resolve, reject) => {
    const fail = (why: string) => {
      clearTimeout(timer);
      void server.kill().then(() => reject(new Error(`server ${why}:\n${logs}`)));
    };
    const timer = setTimeout(() => fail('did not start in time'), options.timeoutMs ?? 120_000);
    child.once('exit', (code, signal) => {
      if (!listening) fail(`exited before listening (${code ?? signal})`);
    });
    child.stdout!.on('data', (chunk: Buffer) => {
      logs += chunk.toString();
      const port = /listening on http:\/\/[\d.]+:(\d+)/.exec(logs)?.[1];
      if (port) {
        clearTimeout(timer);
        listening = true;
        resolve(`http://127.0.0.1:${port}`);
      }
    });
  });
  return server;
}

const running = new Set<ServerProcess>();

/** Kills every server this helper started that is still running (for afterAll). */
export async function killAllServers(): Promise<void> {
  await Promise.all([...running].map((server) => server.kill()));
}

/** `npm run --silent admin -- …` as an operator runs it, with this environment; the parsed JSON line. */
export async function admin(args: string[], env: Record<string, string | undefined>): Promise<any> {
  const { stdout } = await run(process.execPath, [built('admin'), ...args], { env: { ...process.env, ...env } });
  return JSON.parse(stdout);
}
