import { clientIp, rateLimitBucket, type TrustProxy } from './client-ip';

/** The socket's peer address, when the request came over node:http (not in-process `yoga.fetch`). */
export function socketAddress(serverContext: object): string {
  const req = (serverContext as { req?: { socket?: { remoteAddress?: string } } }).req;
  return req?.socket?.remoteAddress ?? '127.0.0.1';
}

/** The per-IP rate-limit bucket of a request: its client address (TRUST_PROXY decides), IPv6 by /64. */
export function clientBucket(serverContext: object, request: Request, trust: TrustProxy): string {
  return rateLimitBucket(clientIp(socketAddress(serverContext), request.headers.get('x-forwarded-for'), trust));
}
