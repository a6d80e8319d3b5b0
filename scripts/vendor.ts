/**
 * Copies the third-party files the server serves as they are into vendor/ (vendor/README.md), from
 * the devDependencies that ship them: `npm run vendor` after updating one of those packages.
 * test/pages/vendored-assets.test.ts fails while a copy differs from its package's file.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);

/** vendor/ path → the package file it copies. */
export const VENDORED: Readonly<Record<string, string>> = {
  'redoc/redoc.standalone.js': 'redoc/bundles/redoc.standalone.js',
  'redoc/redoc.standalone.js.LICENSE.txt': 'redoc/bundles/redoc.standalone.js.LICENSE.txt',
  'redoc/LICENSE': 'redoc/LICENSE',
};

export const VENDOR_DIR = path.resolve(import.meta.dirname, '..', 'vendor');

export function packageFile(specifier: string): string {
  return require.resolve(specifier);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  for (const [target, source] of Object.entries(VENDORED)) {
    mkdirSync(path.dirname(path.join(VENDOR_DIR, target)), { recursive: true });
    copyFileSync(packageFile(source), path.join(VENDOR_DIR, target));
    console.log(`vendor/${target} ← ${source}`);
  }
}
