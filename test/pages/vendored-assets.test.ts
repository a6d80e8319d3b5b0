import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { vendoredPath } from '../../src/pages/front/assets';
import { packageFile, VENDOR_DIR, VENDORED } from '../../scripts/vendor';

/** vendor/ holds byte-for-byte copies of the pinned devDependencies' files (`npm run vendor` writes them). */
describe('vendored assets', () => {
  it.each(Object.entries(VENDORED))('vendor/%s is the same bytes as %s', (target, source) => {
    const copy = readFileSync(path.join(VENDOR_DIR, target));
    const original = readFileSync(packageFile(source));
    expect(copy.length).toBeGreaterThan(0);
    expect(copy.equals(original), `vendor/${target} differs from ${source}: run npm run vendor`).toBe(true);
  });

  it('the server finds them from its own folder, the one the suite checks', () => {
    expect(vendoredPath('redoc/redoc.standalone.js')).toBe(path.join(VENDOR_DIR, 'redoc', 'redoc.standalone.js'));
    expect(() => vendoredPath('redoc/nothing-here.js')).toThrow(/vendor\/redoc\/nothing-here\.js is not in any folder above/);
  });
});
