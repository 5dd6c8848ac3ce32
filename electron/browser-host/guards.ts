import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';


/** Compares tokens in constant time so a local attacker cannot guess one byte at a time. */
export function tokenMatches(expected: string, given: string | null | undefined): boolean {
  if (!given) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function bearerToken(request: IncomingMessage): string | null {
  const header = request.headers.authorization;
  if (!header) return null;
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  return match?.[1] ?? null;
}

/**
 * DNS-rebinding and cross-site guard: the Host header must name the address we listen on, and an
 * Origin, when the browser sends one, must be our own origin. A page on another site can make the
 * browser send requests to 127.0.0.1, but it cannot forge these headers.
 */
export function requestComesFromUs(request: IncomingMessage, allowedHosts: ReadonlySet<string>): boolean {
  const host = request.headers.host;
  if (!host || !allowedHosts.has(host.toLowerCase())) return false;
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  return allowedHosts.has(origin.replace(/^http:\/\//, '').toLowerCase()) && origin.startsWith('http://');
}
