// `--server-cmd` / `--compare` values: a JSON argv array, or a shell-like string (quotes and
// backslashes honoured, leading NAME=value words become environment). No shell is run, so the
// spawned process is the server itself and its pid is the one the bench kills.
import { existsSync } from 'node:fs';
import { basename, isAbsolute, resolve } from 'node:path';
import { HOST_CLI } from './repo-paths.js';

/** A server to benchmark: what to run, extra environment, and a short name for reports. */
export interface ServerCommand {
  name: string;
  argv: string[];
  env: Record<string, string>;
}

/** This host over stdio, as the brief runs it. */
export function defaultServerCommand(): ServerCommand {
  return { name: 'thread-host', argv: [process.execPath, HOST_CLI, 'app-server', '--listen', 'stdio://'], env: {} };
}

export function parseServerCommand(spec: string): ServerCommand {
  const trimmed = spec.trim();
  let words: string[];
  if (trimmed.startsWith('[')) {
    const parsed: unknown = JSON.parse(trimmed);
    if (!Array.isArray(parsed) || !parsed.every((w) => typeof w === 'string')) {
      throw new Error(`server command: expected a JSON array of strings, got ${trimmed}`);
    }
    words = parsed;
  } else {
    words = splitShellWords(trimmed);
  }
  const env: Record<string, string> = {};
  while (words.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0]!)) {
    const word = words.shift()!;
    const eq = word.indexOf('=');
    env[word.slice(0, eq)] = word.slice(eq + 1);
  }
  if (words.length === 0) throw new Error(`server command: nothing to run in ${JSON.stringify(spec)}`);
  // The server runs with cwd = its temp home, so a relative path that names a file here
  // (`dist/bundle/cli.js`) would not resolve there: anchor it to the bench's cwd.
  const argv = words.map((word) => (!isAbsolute(word) && word.includes('/') && existsSync(word) ? resolve(word) : word));
  return { name: nameOf(argv), argv, env };
}

/** Gives two servers distinct names so report rows never merge. */
export function distinctNames(servers: ServerCommand[]): ServerCommand[] {
  const seen = new Map<string, number>();
  return servers.map((server) => {
    const n = (seen.get(server.name) ?? 0) + 1;
    seen.set(server.name, n);
    return n === 1 ? server : { ...server, name: `${server.name}#${n}` };
  });
}

/** `codex` for a native binary; `thread-host` for `node …/cli.js`; else the script's name. */
function nameOf(argv: string[]): string {
  const first = basename(argv[0]!);
  if (!/^node(js)?$/.test(first) && argv[0] !== process.execPath) return first;
  const script = argv[1] === undefined ? first : basename(argv[1]);
  return script === 'cli.js' ? 'thread-host' : script;
}

function splitShellWords(text: string): string[] {
  const words: string[] = [];
  let current = '';
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]!;
    if (quote === "'") {
      if (c === "'") quote = null;
      else current += c;
    } else if (quote === '"') {
      if (c === '"') quote = null;
      else if (c === '\\' && i + 1 < text.length && '"\\$`'.includes(text[i + 1]!)) current += text[++i];
      else current += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < text.length) {
      current += text[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(current);
      current = '';
      inWord = false;
    } else {
      current += c;
      inWord = true;
    }
  }
  if (quote !== null) throw new Error(`server command: unterminated ${quote} in ${JSON.stringify(text)}`);
  if (inWord) words.push(current);
  return words;
}
