/** The directives of a Content-Security-Policy, by name; `csp()` writes them in this order. */
export type CspDirectives = Readonly<Record<string, string>>;

/**
 * The policy of HTML pages: scripts and everything else only from this origin, never inline, no
 * plugins, no framing, no <base>, forms posted here only. A page that needs more (GraphiQL's
 * inline styles) sets its own policy from this one; this plugin keeps any policy a response has.
 */
export const HTML_CSP: CspDirectives = {
  'default-src': "'self'",
  'script-src': "'self'",
  'style-src': "'self'",
  'img-src': "'self'",
  'font-src': "'self'",
  'connect-src': "'self'",
  'worker-src': "'self'",
  'object-src': "'none'",
  'frame-ancestors': "'none'",
  'base-uri': "'none'",
  'form-action': "'self'",
};

/** Non-HTML answers load nothing: they only must not be framed. */
const API_CSP = "frame-ancestors 'none'";

export function csp(directives: CspDirectives): string {
  return Object.entries(directives)
    .map(([name, value]) => `${name} ${value}`)
    .join('; ');
}

const ALWAYS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
} as const;

/** What every non-HTML answer carries. */
export const API_SECURITY_HEADERS: Readonly<Record<string, string>> = { ...ALWAYS, 'content-security-policy': API_CSP };

/** What an HTML page carries unless it sets a value itself. */
const HTML_SECURITY_HEADERS: Readonly<Record<string, string>> = { ...ALWAYS, 'content-security-policy': csp(HTML_CSP) };

/**
 * Adds the security headers of contract section 10 by content type: an HTML page's policy, or the
 * API's. A value the answer set itself is kept (a page may set a stricter or a needed one: the
 * account page keeps its Referer same-origin so that browsers send a real Origin on its forms).
 */
export function addSecurityHeaders(headers: Record<string, string>): void {
  const type = headers['content-type'];
  const fields = type !== undefined && /^text\/html\b/i.test(type) ? HTML_SECURITY_HEADERS : API_SECURITY_HEADERS;
  for (const name in fields) if (headers[name] === undefined) headers[name] = fields[name]!;
}
