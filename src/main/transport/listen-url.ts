// `--listen` values, parsed as the reference parses them (`AppServerTransport::from_listen_url`):
// `stdio://`, `unix://` (the default control socket in the home), `unix://PATH` (relative to
// the working directory), `ws://IP:PORT` (an IP literal, never a host name; port 0 picks a
// free one) and `off`. Error texts are the reference's.
import { isIP } from 'node:net';
import { resolve } from 'node:path';

/** Where the host listens. */
export type ListenTarget =
  | { kind: 'stdio' }
  | { kind: 'ws'; host: string; port: number }
  | { kind: 'unix'; path: string | null }
  | { kind: 'off' };

/** A `--listen` value the reference would refuse; the message is its text. */
export class ListenUrlError extends Error {}

const EXPECTED = 'expected `stdio://`, `unix://`, `unix://PATH`, `ws://IP:PORT`, or `off`';

export function parseListenUrl(url: string, cwd: string): ListenTarget {
  if (url === 'stdio://') return { kind: 'stdio' };
  if (url === 'off') return { kind: 'off' };
  if (url.startsWith('unix://')) {
    const rest = url.slice('unix://'.length);
    return { kind: 'unix', path: rest === '' ? null : resolve(cwd, rest) };
  }
  if (url.startsWith('ws://')) {
    const address = parseSocketAddress(url.slice('ws://'.length));
    if (address === null) throw new ListenUrlError(`invalid websocket --listen URL \`${url}\`; expected \`ws://IP:PORT\``);
    return { kind: 'ws', ...address };
  }
  throw new ListenUrlError(`unsupported --listen URL \`${url}\`; ${EXPECTED}`);
}

/** Rust's `SocketAddr` syntax: `1.2.3.4:PORT` or `[v6]:PORT`, port 0–65535 in decimal. */
function parseSocketAddress(text: string): { host: string; port: number } | null {
  const v6 = /^\[([^\]]+)\]:(\d{1,5})$/.exec(text);
  const v4 = /^([0-9.]+):(\d{1,5})$/.exec(text);
  const match = v6 ?? v4;
  if (!match) return null;
  const host = match[1]!;
  const port = Number(match[2]);
  if (port > 65_535 || isIP(host) !== (v6 ? 6 : 4)) return null;
  return { host, port };
}

/** The reference's display of a socket address: `127.0.0.1:80`, `[::1]:80`. */
export function formatSocketAddress(host: string, port: number): string {
  return isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`;
}

/** 127.0.0.0/8 and ::1 (also as an IPv4-mapped address): the listeners allowed without auth. */
export function isLoopback(host: string): boolean {
  if (isIP(host) === 4) return host.startsWith('127.');
  const lower = host.toLowerCase();
  return lower === '::1' || lower === '0:0:0:0:0:0:0:1' || lower.startsWith('::ffff:127.');
}
