/**
 * Lists the import circles among the TypeScript files of the given folders (src unless given):
 * `npx tsx scripts/import-circles.ts [paths...]`. Every import counts, `import type` and
 * `export … from` included: a circle of types still ties the files' designs together. Each circle
 * is printed as the files it holds, in a cycle that runs through all of them where one exists.
 * Exits 1 when there is any, so a check can run it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { typeScriptFiles } from './long-functions';

/** Each file's imports of other files of the set, by the compiler's own reading and resolution. */
export function importGraph(
  files: readonly string[],
  read: (file: string) => string = (file) => readFileSync(file, 'utf8'),
): Map<string, string[]> {
  const known = new Set(files.map((file) => path.resolve(file)));
  const options: ts.CompilerOptions = {
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    allowImportingTsExtensions: true,
  };
  const host: ts.ModuleResolutionHost = {
    fileExists: (file) => known.has(path.resolve(file)) || ts.sys.fileExists(file),
    readFile: (file) => (known.has(path.resolve(file)) ? read(file) : ts.sys.readFile(file)),
  };
  const graph = new Map<string, string[]>();
  for (const file of known) {
    const { importedFiles } = ts.preProcessFile(read(file), true, true);
    const targets = importedFiles
      .map(({ fileName }) => ts.resolveModuleName(fileName, file, options, host).resolvedModule?.resolvedFileName)
      .filter((target): target is string => target !== undefined && known.has(path.resolve(target)))
      .map((target) => path.resolve(target));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** The strongly connected groups of more than one file, or of one file that imports itself (Tarjan). */
export function importCircles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (file: string) => {
    index.set(file, counter);
    low.set(file, counter);
    counter += 1;
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file)!, index.get(next)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== file);
    if (group.length > 1 || (graph.get(file) ?? []).includes(file)) circles.push(group.sort());
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) visit(file);
  return circles;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = process.cwd();
  const paths = process.argv.slice(2);
  const circles = importCircles(importGraph(typeScriptFiles(paths.length > 0 ? paths : ['src'])));
  for (const circle of circles) console.log(circle.map((file) => path.relative(root, file)).join(' <-> '));
  process.exitCode = circles.length > 0 ? 1 : 0;
}
