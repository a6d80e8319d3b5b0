/**
 * Escaped tagged templates: every interpolated value is HTML-escaped unless it is itself the
 * result of `html` (already safe). No template engine: the page is a few small views, and a
 * tagged template keeps them type-checked by tsc with the escaping impossible to forget.
 */
export class SafeHtml {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Value = SafeHtml | string | number | boolean | null | undefined | readonly Value[];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => ESCAPES[c]!);
}

function render(value: Value): string {
  if (value instanceof SafeHtml) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Value[]): SafeHtml {
  let out = strings[0]!;
  values.forEach((value, i) => (out += render(value) + strings[i + 1]!));
  return new SafeHtml(out);
}
