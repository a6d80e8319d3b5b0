import { createHash } from 'node:crypto';
import { FAVICON_SVG } from '../http/answer/favicon';

/**
 * The page's only style sheet and script, served same-origin at fixed paths (the CSP allows
 * 'self' and nothing inline). The script only adds a copy button; everything works without it.
 */
const CSS = `
:root { color-scheme: light dark; --accent: #1d4ed8; --danger: #b91c1c; --muted: #6b7280; }
* { box-sizing: border-box; }
body { font: 16px/1.5 system-ui, sans-serif; margin: 0 auto; max-width: 56rem; padding: 1rem; }
header { display: flex; flex-wrap: wrap; gap: 1rem; align-items: center; justify-content: space-between; }
h1 { font-size: 1.5rem; margin: 0.5rem 0; }
h2 { font-size: 1.2rem; margin-top: 2rem; }
label { display: block; font-weight: 600; margin-top: 0.75rem; }
input[type=email], input[type=password] { display: block; width: 100%; max-width: 24rem; padding: 0.5rem; font: inherit; }
button, .button { font: inherit; padding: 0.4rem 0.9rem; margin: 0.5rem 0.5rem 0 0; cursor: pointer; border-radius: 4px;
  border: 1px solid var(--accent); background: var(--accent); color: #fff; text-decoration: none; display: inline-block; }
button.secondary, .button.secondary { background: transparent; color: var(--accent); }
button.danger { background: var(--danger); border-color: var(--danger); }
button:focus-visible, a:focus-visible, input:focus-visible { outline: 3px solid #f59e0b; outline-offset: 2px; }
.notice { border-left: 4px solid var(--accent); padding: 0.5rem 1rem; background: rgba(29, 78, 216, 0.08); }
.error { border-left: 4px solid var(--danger); padding: 0.5rem 1rem; background: rgba(185, 28, 28, 0.08); }
.new-key code { display: block; word-break: break-all; font-size: 1.05rem; padding: 0.5rem; background: rgba(127, 127, 127, 0.15); }
progress { -webkit-appearance: none; appearance: none; display: block; width: 100%; max-width: 24rem; height: 1rem;
  border: 1px solid var(--muted); border-radius: 4px; background: rgba(127, 127, 127, 0.12); overflow: hidden; }
progress::-webkit-progress-bar { background: rgba(127, 127, 127, 0.12); }
progress::-webkit-progress-value { background: var(--accent); }
progress::-moz-progress-bar { background: var(--accent); }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 0.4rem; border-bottom: 1px solid rgba(127, 127, 127, 0.3); vertical-align: top; }
td form { display: inline; }
.actions { display: flex; flex-wrap: nowrap; align-items: center; gap: 0.5rem; white-space: nowrap; }
.actions button { margin: 0; }
td[data-label="Created"], td[data-label="Last used"], td[data-label="Expires"] { white-space: nowrap; }
.actions .state { white-space: normal; }
fieldset label { font-weight: normal; }
.muted { color: var(--muted); }
fieldset { border: 0; padding: 0; margin: 0.75rem 0 0; }
legend { font-weight: 600; }
fieldset label.with-date { display: inline-block; margin-right: 0.5rem; }
input[type=date] { font: inherit; padding: 0.2rem 0.4rem; }
h3 { font-size: 1.05rem; margin: 1.5rem 0 0.5rem; }
figure.chart { margin: 0; }
.usage-chart { display: block; width: 100%; }
.chart-legend { list-style: none; display: flex; flex-wrap: wrap; gap: 0.25rem 1.25rem; margin: 0; padding: 0; font-size: 0.9rem; }
.chart-legend li { display: inline-flex; align-items: center; gap: 0.4rem; }
.entry { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 20rem), 1fr)); gap: 0 2.5rem; }
.entry h2 { margin-top: 1.25rem; }
.mcp code { display: inline; font-size: inherit; padding: 0 0.2rem; word-break: normal; }
input[type=url] { display: block; width: 100%; max-width: 36rem; padding: 0.5rem; font: inherit; }
ul.deliveries { margin: 0.25rem 0 0; padding-left: 1.1rem; font-size: 0.9rem; }
/* A long endpoint URL or delivery line wraps anywhere rather than widen the page on a phone. */
table.webhooks td { overflow-wrap: anywhere; }
.ok { color: #15803d; }
.failed { color: var(--danger); }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
@media (max-width: 30rem) { .usage-chart .x-label-between { display: none; } }
@media (max-width: 40rem) { thead { display: none; } tr, td { display: block; } td[data-label]::before { content: attr(data-label) ": "; font-weight: 600; } }
`;

const COPY_JS = `
for (const button of document.querySelectorAll('button[data-copy]')) {
  const target = document.getElementById(button.dataset.copy);
  if (!target || !navigator.clipboard) continue;
  button.hidden = false;
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(target.textContent.trim());
      button.textContent = 'Copied';
    } catch {
      button.textContent = 'Copy failed: select the key and copy it';
    }
  });
}
`;

export const STYLESHEET_PATH = '/account/assets/account.css';
export const SCRIPT_PATH = '/account/assets/copy.js';
/** Declared by every page, so that browsers do not ask for /favicon.ico (a 404 in their console). */
export const FAVICON_PATH = '/account/assets/favicon.svg';

export interface Asset {
  body: string;
  type: string;
  etag: string;
}

const asset = (body: string, type: string): Asset => ({
  body,
  type,
  etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 16)}"`,
});

export const ASSETS: Readonly<Record<string, Asset>> = {
  [STYLESHEET_PATH]: asset(CSS, 'text/css; charset=utf-8'),
  [SCRIPT_PATH]: asset(COPY_JS, 'text/javascript; charset=utf-8'),
  [FAVICON_PATH]: asset(FAVICON_SVG, 'image/svg+xml'),
};
