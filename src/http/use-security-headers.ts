import type { Plugin } from 'graphql-yoga';

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

/** What every non-HTML answer carries: the edge writes these itself, the plugin below adds them to Yoga's. */
export const API_SECURITY_HEADERS: Readonly<Record<string, string>> = { ...ALWAYS, 'content-security-policy': API_CSP };

/** What an HTML page carries unless it sets a value itself. */
const HTML_SECURITY_HEADERS: Readonly<Record<string, string>> = { ...ALWAYS, 'content-security-policy': csp(HTML_CSP) };

/** The headers every answer written outside Yoga carries (contract section 10): never cached, and the security headers. */
export const BASELINE_HEADERS: Readonly<Record<string, string>> = { 'cache-control': 'no-store', ...API_SECURITY_HEADERS };

/**
 * Security headers on every response (contract section 10): REST, GraphQL, errors, 304s and
 * preflights alike. First in the plugin list, so its onResponse sees every answer, early ones too.
 */
export function useSecurityHeaders(): Plugin {
  return {
    onResponse({ response }) {
      // A page may set a stricter or a needed value itself (the account page keeps its Referer
      // same-origin so that browsers send a real Origin on its forms): it is kept.
      const html = /^text\/html\b/i.test(response.headers.get('content-type') ?? '');
      for (const [name, value] of Object.entries(html ? HTML_SECURITY_HEADERS : API_SECURITY_HEADERS)) if (!response.headers.has(name)) response.headers.set(name, value);
    },
  };
}
