// Where a host keeps its state: config.toml, sessions/ and thread-writer-locks/.
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** `$THREAD_HOST_HOME`, else `$CODEX_HOME` (so harnesses written for the reference work), else `~/.thread-host`. */
export function resolveHome(env: NodeJS.ProcessEnv = process.env): string {
  const explicit = env.THREAD_HOST_HOME || env.CODEX_HOME;
  return explicit ? resolve(explicit) : join(homedir(), '.thread-host');
}
