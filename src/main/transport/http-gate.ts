// What the TCP listener answers over plain HTTP, before a WebSocket takes over, as the
// reference's axum router does: `/readyz` and `/healthz` (200, empty, no auth), any request
// with an `Origin` header 403 (so no browser page can drive the host), `/metrics` (thread-host),
// and axum's own rejections of a request that is not a well-formed upgrade. Texts are axum's.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

/** An HTTP answer written instead of upgrading. */
export interface HttpAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

const REASONS: Record<number, string> = {
  200: 'OK',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  405: 'Method Not Allowed',
  500: 'Internal Server Error',
};

const TEXT = { 'content-type': 'text/plain; charset=utf-8' };
export const HEALTH_PATHS: ReadonlySet<string> = new Set(['/readyz', '/healthz']);
export const METRICS_PATH = '/metrics';

/** The path without its query string. */
export const pathOf = (request: IncomingMessage): string => (request.url ?? '/').split('?', 1)[0]!;

/** 403 for any request carrying `Origin`, checked before anything else (auth included). */
export function originRefusal(request: IncomingMessage): HttpAnswer | null {
  return request.headers.origin === undefined ? null : { status: 403 };
}

/** `/readyz` and `/healthz`: 200 for GET and HEAD, 405 otherwise. */
export function healthAnswer(request: IncomingMessage): HttpAnswer {
  return request.method === 'GET' || request.method === 'HEAD' ? { status: 200 } : { status: 405, headers: { allow: 'GET,HEAD' } };
}

/** axum's `WebSocketUpgrade` extractor rejections, in its order; null for a valid upgrade request. */
export function upgradeRejection(request: IncomingMessage): HttpAnswer | null {
  const { headers } = request;
  if (request.method !== 'GET') return { status: 405, headers: TEXT, body: 'Request method must be `GET`' };
  if (!hasToken(headers.connection, 'upgrade')) return { status: 400, headers: TEXT, body: "Connection header did not include 'upgrade'" };
  if (!hasToken(headers.upgrade, 'websocket')) return { status: 400, headers: TEXT, body: "`Upgrade` header did not include 'websocket'" };
  if (headers['sec-websocket-key'] === undefined) return { status: 400, headers: TEXT, body: '`Sec-WebSocket-Key` header missing' };
  if (headers['sec-websocket-version'] !== '13') return { status: 400, headers: TEXT, body: "`Sec-WebSocket-Version` header did not include '13'" };
  return null;
}

/** A 401 with the reference's fixed body (the detailed reason goes to the log only). */
export const unauthorized = (body: string): HttpAnswer => ({ status: 401, headers: TEXT, body });

/** Writes an answer on a raw socket (an upgrade request that will not be upgraded) and closes it. */
export function writeRawAnswer(socket: Duplex, answer: HttpAnswer): void {
  const body = answer.body ?? '';
  const lines = [`HTTP/1.1 ${answer.status} ${REASONS[answer.status] ?? ''}`];
  for (const [name, value] of Object.entries(answer.headers ?? {})) lines.push(`${name}: ${value}`);
  lines.push(`content-length: ${Buffer.byteLength(body)}`, `date: ${new Date().toUTCString()}`, 'connection: close');
  socket.end(lines.join('\r\n') + '\r\n\r\n' + body);
}

const hasToken = (value: string | undefined, token: string): boolean =>
  value !== undefined && value.split(',').some((part) => part.trim().toLowerCase() === token);
