import { ApiError } from '../domain/errors';
import { SESSION_ABSOLUTE_MS, SESSION_COOKIE } from '../domain/sessions';
import { readBodyText } from '../http/front/body';
import { isTrustedProxy, type TrustProxy } from '../domain/client-ip';
import type { ServerContext } from '../http/front/request-context';

/** The account page's HTTP details: headers, the session cookie, the Origin check, form bodies. */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/**
 * On every account response. Referrer-Policy is same-origin, not no-referrer: with no-referrer a
 * browser sends `Origin: null` on form posts, and the Origin check below needs the real one.
 */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': PAGE_CSP,
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
};

const FORM_LIMIT = 8 * 1024;

/** The request came over TLS: directly, or as a proxy TRUST_PROXY vouches for says in X-Forwarded-Proto. */
export function cameOverTls(request: Request, url: URL, serverContext: object, trust: TrustProxy): boolean {
  if (url.protocol === 'https:') return true;
  if (!isTrustedProxy(trust, (serverContext as ServerContext).req?.socket?.remoteAddress ?? '127.0.0.1')) return false;
  return request.headers.get('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase() === 'https';
}

export function sessionCookie(token: string, secure: boolean): string {
  return `${SESSION_COOKIE}=${token}; Max-Age=${SESSION_ABSOLUTE_MS / 1000}; Path=/; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

export function clearedSessionCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

export function sessionTokenOf(request: Request): string | undefined {
  for (const part of (request.headers.get('cookie') ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * Refuses (FORBIDDEN) a state-changing request that a page of another origin could have sent:
 * Origin must be this server's. A browser that sends no usable Origin (`null` under some referrer
 * policies) still says `Sec-Fetch-Site: same-origin`, which no page can forge.
 */
export function checkSameOrigin(request: Request, selfOrigin: string): void {
  const origin = request.headers.get('origin');
  if (origin !== null && origin !== 'null') {
    if (origin === selfOrigin) return;
    throw new ApiError('FORBIDDEN', 'This request came from another site and was refused: use the account page itself.');
  }
  if (request.headers.get('sec-fetch-site') === 'same-origin') return;
  throw new ApiError(
    'FORBIDDEN',
    'This request did not say where it came from (no Origin header) and was refused: use the account page itself.',
  );
}

/** An HTML form body (application/x-www-form-urlencoded), at most 8 KiB. */
export async function readForm(request: Request): Promise<URLSearchParams> {
  const type = request.headers.get('content-type')?.split(';', 1)[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') {
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE', 'Send the form as application/x-www-form-urlencoded, as the account page does.');
  }
  return new URLSearchParams(await readBodyText(request, FORM_LIMIT));
}

export function prefersHtml(request: Request): boolean {
  return /\btext\/html\b/.test(request.headers.get('accept') ?? '');
}

export function htmlResponse(body: string, status = 200, headers: Record<string, string> = {}, cookies: string[] = []): Response {
  const response = new Response(body, { status, headers: { 'content-type': 'text/html; charset=utf-8', ...headers } });
  for (const cookie of cookies) response.headers.append('set-cookie', cookie);
  return response;
}

/** Post, then redirect: 303 makes the browser GET the page, so a reload never repeats the post. */
export function redirect(location: string, cookies: string[] = []): Response {
  const response = new Response(null, { status: 303, headers: { location } });
  for (const cookie of cookies) response.headers.append('set-cookie', cookie);
  return response;
}
