import type { AccountSession } from '../services/accounts';
import { FAVICON_PATH, SCRIPT_PATH, STYLESHEET_PATH } from './assets';
import { html, type SafeHtml } from './html';

/** The frame of every account page: its style sheet, its icon and, when a key is shown, the copy script. */
export function layout(title: string, main: SafeHtml, script = false): string {
  return `<!doctype html>${
    html`
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Measurement API</title>
<link rel="icon" href="${FAVICON_PATH}" type="image/svg+xml">
<link rel="stylesheet" href="${STYLESHEET_PATH}">
${script ? html`<script src="${SCRIPT_PATH}" defer></script>` : ''}
</head>
<body>
<main>
${main}
</main>
</body>
</html>`.text
  }\n`;
}

export const csrfField = (session: AccountSession) => html`<input type="hidden" name="csrf" value="${session.csrf}">`;

/** The form of a confirmation step: posts `confirm=yes` (with the CSRF token) to `action`, or goes back to `cancel`. */
export const confirmForm = (
  session: AccountSession,
  action: string,
  label: string,
  cancel: string,
) => html`<form method="post" action="${action}">
  ${csrfField(session)}
  <input type="hidden" name="confirm" value="yes">
  <button type="submit" class="danger">${label}</button>
  <a class="button secondary" href="${cancel}">Cancel</a>
</form>`;
export const day = (iso: string | null) => (iso === null ? '' : iso.slice(0, 10));
export const message = (text: string | undefined, kind: 'error' | 'notice') =>
  text ? html`<p class="${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${text}</p>` : '';
