// The raw configuration document, layered as the reference layers it: the `-c key=value`
// overrides, then a thread's `config` map, are assignments at dotted paths into one layer of
// their own, each replacing what the layer held at its path; that layer is then merged over
// config.toml table by table, so a whole `mcp_servers` table from a thread adds to config.toml's
// servers (and, being an assignment, drops the `-c` ones from the layer).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseTomlText } from 'smol-toml';

export type ConfigDocument = Record<string, unknown>;

/**
 * A configuration problem, worded for a person and naming the key when there is one: the
 * message is `<key>: <problem>`, which config/mcpServer/reload places in config.toml by its key
 * (mcp-config-error-position.ts); a request's `config` words it as the reference does (`keyed`).
 */
export class ConfigError extends Error {
  constructor(
    message: string,
    /** The dotted key the problem is at, when there is one. */
    readonly key: string | null = null,
    /** The problem without its key. */
    readonly problem: string = message,
  ) {
    super(message);
  }

  /** A problem with the value at `key`. */
  static at(key: string, problem: string): ConfigError {
    return new ConfigError(`${key}: ${problem}`, key, problem);
  }

  /** As the reference's TOML deserializer words a problem at a key: ``<problem>\nin `<key>`\n``. */
  get keyed(): string {
    if (this.key === null) return this.message;
    // A list's item is placed at the item in config.toml, but the reference's text names the list.
    return `${this.problem}\nin \`${this.key.replace(/\[\d+\]$/, '')}\`\n`;
  }
}

/** Reads `<home>/config.toml`; a missing file is an empty document. */
export function readConfigFile(home: string): ConfigDocument {
  const path = join(home, 'config.toml');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new ConfigError(`cannot read ${path}: ${(error as Error).message}`);
  }
  try {
    return parseToml(text);
  } catch (error) {
    throw new ConfigError(`${path}: ${(error as Error).message}`);
  }
}

// Integers beyond 2^53 stay BigInt so range checks (thread_unload_delay_secs) see the real value.
// The parser is imported statically: the build inlines it into the start bundle
// (scripts/bundle.mjs), where it costs less than resolving the package from node_modules
// before the first reply, which every home with a config.toml used to pay.
export const parseToml = (text: string): ConfigDocument => parseTomlText(text, { integersAsBigInt: 'asNeeded' }) as ConfigDocument;

/**
 * Parses one `-c key=value` override. The value is TOML; when it does not parse as a TOML
 * value it is taken as a plain string, as the reference does (`-c model=o3`).
 */
export function parseOverride(text: string): { path: string[]; value: unknown } {
  const eq = text.indexOf('=');
  if (eq === -1) throw new ConfigError(`error parsing -c overrides: Invalid override (missing '='): ${text}`);
  const key = text.slice(0, eq).trim();
  if (key === '') throw new ConfigError(`error parsing -c overrides: Empty key in override: ${text}`);
  const raw = text.slice(eq + 1).trim();
  const path = key.split('.').map((part) => part.trim());
  if (path.some((part) => part.length === 0)) throw new ConfigError(`invalid override key \`${key}\``);
  let value: unknown;
  try {
    value = parseToml(`v = ${raw}`).v;
  } catch {
    value = raw;
  }
  return { path, value };
}

/** Returns a copy of `document` with `value` set at the dotted `path`, creating tables. */
export function withValueAt(document: ConfigDocument, path: readonly string[], value: unknown): ConfigDocument {
  const root: ConfigDocument = { ...document };
  let table = root;
  for (const [index, part] of path.entries()) {
    if (index === path.length - 1) {
      table[part] = value;
      break;
    }
    const existing = table[part];
    const next: ConfigDocument =
      existing !== null && typeof existing === 'object' && !Array.isArray(existing) ? { ...(existing as ConfigDocument) } : {};
    table[part] = next;
    table = next;
  }
  return root;
}

/** Assigns each key of a `config` map from `thread/start`/`resume`/`fork` (keys may be dotted) into `layer`. */
export function withOverrides(layer: ConfigDocument, overrides: Record<string, unknown>): ConfigDocument {
  let result = layer;
  for (const [key, value] of Object.entries(overrides)) result = withValueAt(result, key.split('.'), tomlValueOf(value));
  return result;
}

/**
 * A JSON value as the reference converts it to TOML (`json_to_toml`): TOML has no null, so a
 * null, at the top or anywhere inside a table or an array, is the empty string `""`, which each
 * key then takes as it takes `""` (a string key holds it; a table or a number key refuses it).
 */
export function tomlValueOf(value: unknown): unknown {
  if (value === null) return '';
  if (Array.isArray(value)) return value.map(tomlValueOf);
  if (typeof value === 'object') return Object.fromEntries(Object.entries(value as ConfigDocument).map(([key, item]) => [key, tomlValueOf(item)]));
  return value;
}

/** config.toml with the `-c` layer, and a thread's `config` map assigned into that layer, over it. */
export function threadDocument(user: ConfigDocument, flags: ConfigDocument | null, config: Record<string, unknown>): ConfigDocument {
  return mergedOver(user, withOverrides(flags ?? {}, config));
}

/**
 * `overlay` over `base`: where both hold a table the tables merge key by key, all the way
 * down; anything else in `overlay` (an array, a scalar) replaces what `base` held.
 */
export function mergedOver(base: ConfigDocument, overlay: ConfigDocument): ConfigDocument {
  const result: ConfigDocument = { ...base };
  for (const [key, value] of Object.entries(overlay)) {
    const existing = result[key];
    result[key] = isTable(existing) && isTable(value) ? mergedOver(existing, value) : value;
  }
  return result;
}

// TOML dates parse to Date objects, which are values, not tables.
function isTable(value: unknown): value is ConfigDocument {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date);
}
