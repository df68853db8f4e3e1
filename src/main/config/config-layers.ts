// The layers a configuration was built from, in the shapes config/read reports them
// (codex 0.171.0's ConfigLayer, ConfigLayerMetadata): `-c` overrides above config.toml.
// thread-host reads no system, managed or project config, so it reports none; its defaults
// are not a layer either, as with the reference: they show in the effective config, with no origin.
import type { ConfigDocument } from './config-document.js';
import { builtin } from '../lazy-builtin.js';

/** config.toml and the command line's `-c` overrides, each as read at start. */
export interface ConfigLayers {
  /** The absolute path of config.toml (reported even when the file does not exist). */
  userFile: string;
  user: ConfigDocument;
  /** The `-c` overrides as a document; null when there were none. */
  flags: ConfigDocument | null;
}

type LayerName = { type: 'sessionFlags' } | { type: 'user'; file: string; profile: null };

export interface ConfigLayer {
  name: LayerName;
  version: string;
  config: Record<string, unknown>;
}

export type ConfigOrigins = Record<string, { name: LayerName; version: string }>;

/** The layers, highest precedence first, with their contents as JSON. */
export function describeLayers(layers: ConfigLayers): ConfigLayer[] {
  const described: ConfigLayer[] = [];
  if (layers.flags !== null) described.push(layer({ type: 'sessionFlags' }, layers.flags));
  described.push(layer({ type: 'user', file: layers.userFile, profile: null }, layers.user));
  return described;
}

/** Which layer each dotted key path's value comes from: the highest layer that sets it. */
export function originsOf(layers: readonly ConfigLayer[]): ConfigOrigins {
  const origins: ConfigOrigins = {};
  for (const { name, version, config } of [...layers].reverse()) {
    for (const path of leafPaths(config, '')) origins[path] = { name, version };
  }
  return origins;
}

/** A TOML document as JSON: integers past 2^53 as numbers, dates as their TOML text. */
export function tomlToJson(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(tomlToJson);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = tomlToJson(item);
    return out;
  }
  return value;
}

function layer(name: LayerName, document: ConfigDocument): ConfigLayer {
  const config = tomlToJson(document) as Record<string, unknown>;
  return { name, version: versionOf(config), config };
}

// The reference names a layer's version by the SHA-256 of its contents as compact JSON with
// sorted keys (an empty layer is the hash of `{}`).
function versionOf(config: Record<string, unknown>): string {
  // crypto is loaded at the first config/read, not on the start path (lazy-builtin.ts).
  const { createHash } = builtin<typeof import('node:crypto')>('node:crypto');
  return `sha256:${createHash('sha256').update(sortedJson(config)).digest('hex')}`;
}

function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${sortedJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}

// Tables are walked; anything else (arrays included) is one value.
function* leafPaths(table: Record<string, unknown>, prefix: string): Generator<string> {
  for (const [key, value] of Object.entries(table)) {
    const path = prefix + key;
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) yield* leafPaths(value as Record<string, unknown>, `${path}.`);
    else yield path;
  }
}
