/**
 * `npm test`: the static checks (typecheck, lint, layout, schema drift) beside every vitest
 * project, not before them. The checks need about 40 s of one core; the suites' first minutes are
 * mostly spent waiting on child processes and an idle keep-alive, so the two overlap, and the solo
 * project (whose bounds assume the machine to itself) starts long after the checks have ended.
 * The checks' output is held and printed once they end, so it never interleaves with vitest's;
 * the exit status is non-zero when either side fails.
 */
import { spawn } from 'node:child_process';

const STATIC_CHECKS = ['typecheck', 'lint', 'format:check', 'schema:check'];

interface Outcome {
  ok: boolean;
  output: string;
}

/** Runs the checks one after another with their output captured; stops at the first that fails, as `&&` does. */
async function staticChecks(): Promise<Outcome> {
  let output = '';
  for (const script of STATIC_CHECKS) {
    const started = performance.now();
    const { code, text } = await run('npm', ['run', '--silent', script], 'pipe');
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    output += `${text}npm run ${script}: ${code === 0 ? 'ok' : `failed (exit ${code})`} in ${seconds} s\n`;
    if (code !== 0) return { ok: false, output };
  }
  return { ok: true, output };
}

function run(command: string, args: string[], stdio: 'pipe' | 'inherit'): Promise<{ code: number; text: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: stdio === 'pipe' ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    let text = '';
    child.stdout?.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.on('error', (error) => resolve({ code: 1, text: `${text}${error.message}\n` }));
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), text }));
  });
}

const checks = staticChecks().then((outcome) => {
  process.stdout.write(`\n--- static checks ---\n${outcome.output}---\n`);
  return outcome.ok;
});
const suites = run('npx', ['vitest', 'run', ...process.argv.slice(2)], 'inherit').then(({ code }) => code === 0);
const [checked, tested] = await Promise.all([checks, suites]);
if (!checked) process.stdout.write('npm test: the static checks failed (their output is above).\n');
process.exit(checked && tested ? 0 : 1);
