// Config documents as the command line builds them, and a resolver's outcome as a value.
import { ConfigError, parseOverride, withValueAt, type ConfigDocument } from '../../src/main/config/config-document.js';

/** A document built from `-c` overrides, as the command line builds it. */
export function fromOverrides(...overrides: string[]): ConfigDocument {
  let document: ConfigDocument = {};
  for (const text of overrides) {
    const { path, value } = parseOverride(text);
    document = withValueAt(document, path, value);
  }
  return document;
}

/** What `resolveConfig` makes of a document: its config, or the ConfigError's message. */
export function configOrError<T>(resolveConfig: () => T): { config: T } | { error: string } {
  try {
    return { config: resolveConfig() };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return { error: error.message };
  }
}
