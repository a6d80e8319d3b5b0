import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FAVICON_SVG } from '../../http/answer/favicon';
import { staticAsset, type StaticAsset } from '../../http/graphiql/static-asset';

export { FRONT_ASSETS_PATH } from '../../http/routes';

/** What Redoc is given: the document it renders, and options that keep it from reaching anywhere else. */
export const REDOC_OPTIONS = {
  // Redoc's search index runs in a worker made from a blob: URL; the CSP allows blob: workers only.
  disableSearch: false,
  expandResponses: '200',
  hideDownloadButton: false,
  jsonSampleExpandLevel: 3,
  pathInMiddlePanel: true,
  requiredPropsFirst: true,
  sortPropsAlphabetically: false,
  theme: {
    colors: { primary: { main: '#1d4ed8' } },
    typography: {
      fontFamily: 'system-ui, sans-serif',
      headings: { fontFamily: 'system-ui, sans-serif' },
      code: { fontFamily: 'ui-monospace, monospace' },
    },
    sidebar: { width: '280px' },
  },
} as const;

const STYLESHEET = `
:root { color-scheme: light dark; --accent: #1d4ed8; --muted: #6b7280; }
* { box-sizing: border-box; }
body { font: 16px/1.55 system-ui, sans-serif; margin: 0 auto; max-width: 46rem; padding: 1.5rem 1rem; }
h1 { font-size: 1.7rem; margin: 0.25rem 0 0.5rem; display: flex; align-items: center; gap: 0.6rem; }
h1 img { width: 2rem; height: 2rem; }
h2 { font-size: 1.15rem; margin-top: 2rem; }
a { color: var(--accent); }
ul.doors { list-style: none; padding: 0; display: grid; gap: 0.75rem; }
ul.doors li { border: 1px solid rgba(127, 127, 127, 0.35); border-radius: 6px; padding: 0.75rem 1rem; }
ul.doors a { font-weight: 600; font-size: 1.05rem; }
ul.doors p { margin: 0.25rem 0 0; }
code, pre { font: 0.92rem/1.45 ui-monospace, monospace; }
pre { background: rgba(127, 127, 127, 0.12); padding: 0.75rem 1rem; overflow-x: auto; border-radius: 6px; }
.muted { color: var(--muted); }
body.reference { max-width: none; padding: 0; }
body.reference noscript { display: block; padding: 1rem; }
`;

/** The front door's own files: its stylesheet and icon, built at once (a few KiB). */
export interface FrontAssets {
  readonly stylesheet: StaticAsset;
  readonly favicon: StaticAsset;
}

export function frontAssets(): FrontAssets {
  return {
    stylesheet: staticAsset('front', 'css', 'text/css; charset=utf-8', STYLESHEET),
    favicon: staticAsset('favicon', 'svg', 'image/svg+xml', FAVICON_SVG),
  };
}

/** The reference's scripts: Redoc's standalone bundle as the package ships it, and the boot script that starts it. */
export interface ReferenceAssets {
  readonly redoc: StaticAsset;
  readonly boot: StaticAsset;
}

/**
 * The one thing Redoc loads from elsewhere: the logo beside "API docs by Redocly" in its sidebar,
 * from Redocly's CDN. It becomes an empty image (the link and its text stay); the bundle must hold
 * the URL exactly once, so that a Redoc release that changes it fails here, not in a browser.
 */
const REDOC_CDN_LOGO = 'src:"https://cdn.redoc.ly/redoc/logo-mini.svg"';
const EMPTY_IMAGE = `src:"data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='0' height='0'/%3E"`;

export function offlineRedoc(bundle: string): string {
  const parts = bundle.split(REDOC_CDN_LOGO);
  if (parts.length !== 2)
    throw new Error(`Redoc's bundle names its CDN logo ${parts.length - 1} times, not once: check what it loads before serving it.`);
  return parts.join(EMPTY_IMAGE);
}

/**
 * A file of the project's vendor/ folder (vendor/README.md), found from this module's folder
 * upwards: src/pages/front/ when run from source, dist/ when bundled, the project root above both.
 */
export function vendoredPath(relative: string): string {
  const here = fileURLToPath(import.meta.url);
  for (let dir = path.dirname(here); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'vendor', relative);
    if (existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) throw new Error(`vendor/${relative} is not in any folder above ${here}`);
  }
}

/**
 * Redoc's standalone bundle (one UMD file that defines `Redoc`; vendor/redoc/, a copy of the
 * pinned `redoc` package's), read on the first /docs request, not at start-up: about 1 MiB that a
 * server nobody reads the reference on never loads. The boot script runs after it and renders
 * `/openapi.json` into `#redoc`.
 */
export async function referenceAssets(openApiPath: string): Promise<ReferenceAssets> {
  const bundle = await readFile(vendoredPath('redoc/redoc.standalone.js'), 'utf8');
  const redoc = staticAsset('redoc.standalone', 'js', 'text/javascript; charset=utf-8', offlineRedoc(bundle));
  const boot = staticAsset(
    'reference',
    'js',
    'text/javascript; charset=utf-8',
    `'use strict';
Redoc.init(${JSON.stringify(openApiPath)}, ${JSON.stringify(REDOC_OPTIONS)}, document.getElementById('redoc'));
`,
  );
  return { redoc, boot };
}
