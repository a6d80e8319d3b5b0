import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

interface Manifest {
  name?: string;
  version?: string;
  engines?: { node?: string };
}

/** Every package.json npm installed: node_modules at any depth, scoped packages included. */
function installedManifests(root: string): { where: string; manifest: Manifest }[] {
  const found: { where: string; manifest: Manifest }[] = [];
  const visit = (modules: string) => {
    let entries: string[];
    try {
      entries = readdirSync(modules);
    } catch {
      return;
    }
    for (const entry of entries) {
      if (entry.startsWith('.')) continue;
      const dirs = entry.startsWith('@')
        ? readdirSync(path.join(modules, entry)).map((name) => path.join(modules, entry, name))
        : [path.join(modules, entry)];
      for (const dir of dirs) {
        try {
          found.push({
            where: path.relative(root, dir),
            manifest: JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as Manifest,
          });
        } catch {
          continue;
        }
        visit(path.join(dir, 'node_modules'));
      }
    }
  };
  visit(path.join(root, 'node_modules'));
  return found;
}

const root = path.resolve(import.meta.dirname, '../..');

describe('the Node this suite runs on', () => {
  it("is one of the project's engines", () => {
    const own = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as Manifest;
    expect(semver.satisfies(process.version, own.engines!.node!), `${process.version} against ${own.engines!.node}`).toBe(true);
  });

  it('satisfies the engines.node of every installed package, so `npm ci` prints no EBADENGINE line', () => {
    const manifests = installedManifests(root);
    expect(manifests.length).toBeGreaterThan(100);
    const refused = manifests
      .filter(({ manifest }) => typeof manifest.engines?.node === 'string' && !semver.satisfies(process.version, manifest.engines.node))
      .map(({ where, manifest }) => `${where}@${manifest.version}: node ${manifest.engines!.node}`);
    expect(refused).toEqual([]);
  });
});
