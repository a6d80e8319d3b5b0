/**
 * `npm run bench:profile -- <file.cpuprofile | dir> [--last 10] [--top 15] [--stack-groups]
 * [--group label=layers]`: the top layers and functions of a CPU profile (and the groups of layers
 * asked for; --stack-groups: this stack's, see STACK_GROUPS) by self and inclusive share, as Markdown. A directory means the main
 * thread's profile of the newest process in it (what `npm run bench -- --only rest --profile dir`
 * leaves). --last keeps the final N seconds only: the measured load of the last row, without
 * start-up and warm-up.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { formatSummary, STACK_GROUPS, summarise, type CpuProfile, type Groups } from './cpuprofile';

const USAGE =
  "usage: npm run bench:profile -- <file.cpuprofile | dir> [--last seconds] [--top n] [--stack-groups] [--group 'label=layer,prefix*' ...]";

/** `--group 'Fetch adaptation=@whatwg-node/*,node:undici'`, repeatable. */
function readGroups(specs: readonly string[]): Groups {
  const groups: Record<string, string[]> = {};
  for (const spec of specs) {
    const at = spec.indexOf('=');
    if (at < 1 || at === spec.length - 1) throw new Error(`--group must be label=layer[,layer…] (got ${spec})`);
    groups[spec.slice(0, at)] = spec
      .slice(at + 1)
      .split(',')
      .map((p) => p.trim());
  }
  return groups;
}

/**
 * In a directory: the newest process's largest profile. --cpu-prof writes one file per thread
 * (CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile), and under tsx Node 20 also profiles the
 * module-loader thread, which idles; the main thread's profile holds far more call-tree nodes.
 */
function pickProfile(target: string): string {
  if (!fs.statSync(target).isDirectory()) return target;
  const files = fs
    .readdirSync(target)
    .filter((name) => name.endsWith('.cpuprofile'))
    .map((name) => ({ file: path.join(target, name), pid: name.split('.')[3], stat: fs.statSync(path.join(target, name)) }));
  if (files.length === 0) throw new Error(`no .cpuprofile in ${target}`);
  const newest = files.reduce((a, b) => (b.stat.mtimeMs > a.stat.mtimeMs ? b : a));
  return files.filter((f) => f.pid === newest.pid).reduce((a, b) => (b.stat.size > a.stat.size ? b : a)).file;
}

function main(): number {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      last: { type: 'string' },
      top: { type: 'string', default: '15' },
      group: { type: 'string', multiple: true, default: [] },
      'stack-groups': { type: 'boolean', default: false },
    },
  });
  const last = values.last === undefined ? undefined : Number(values.last);
  const top = Number(values.top);
  if (positionals.length !== 1 || (last !== undefined && !(last > 0)) || !Number.isInteger(top) || top < 1) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const file = pickProfile(positionals[0]!);
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  process.stdout.write(
    `${file}${last === undefined ? '' : `, last ${last} s`}\n\n${formatSummary(summarise(profile, last, { ...(values['stack-groups'] ? STACK_GROUPS : {}), ...readGroups(values.group) }), top)}\n`,
  );
  return 0;
}

try {
  process.exitCode = main();
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
  process.exitCode = 1;
}
