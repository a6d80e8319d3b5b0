/**
 * Lists the functions longer than a limit (80 lines unless `--max N`) in the given files or folders
 * (src unless given), longest first: `npx tsx scripts/long-functions.ts [--max N] [paths...]`.
 * A function's length is its lines from the keyword (or first parameter) to its closing brace,
 * nested functions included; each nested function is also measured on its own. Exits 1 when any is
 * over the limit, so a check can run it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export interface LongFunction {
  file: string;
  name: string;
  /** 1-based line of the function's start. */
  line: number;
  lines: number;
}

/** Every function in this source text longer than `max` lines. */
export function longFunctions(file: string, text: string, max: number): LongFunction[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: LongFunction[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = end - start + 1;
      if (lines > max) found.push({ file, name: nameOf(node), line: start + 1, lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The function's own name, or the name of what it is assigned to, or `(anonymous)`. */
function nameOf(node: ts.SignatureDeclaration): string {
  if (node.name !== undefined) return node.name.getText();
  const parent = node.parent;
  if (
    (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) &&
    parent.name !== undefined
  ) {
    return parent.name.getText();
  }
  return '(anonymous)';
}

/** The .ts files under these paths (a file is taken as it is). */
export function typeScriptFiles(paths: readonly string[]): string[] {
  return paths.flatMap((p) => {
    if (!statSync(p).isDirectory()) return [p];
    return readdirSync(p, { recursive: true, encoding: 'utf8' })
      .filter((entry) => entry.endsWith('.ts') && !entry.endsWith('.d.ts'))
      .sort()
      .map((entry) => path.join(p, entry));
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--max');
  const max = at < 0 ? 80 : Number(args.splice(at, 2)[1]);
  const paths = args.length > 0 ? args : ['src'];
  const found = typeScriptFiles(paths)
    .flatMap((file) => longFunctions(file, readFileSync(file, 'utf8'), max))
    .sort((a, b) => b.lines - a.lines);
  for (const f of found) console.log(`${String(f.lines).padStart(4)}  ${f.file}:${f.line}  ${f.name}`);
  console.log(found.length === 0 ? `no function over ${max} lines` : `${found.length} function(s) over ${max} lines`);
  process.exitCode = found.length === 0 ? 0 : 1;
}
