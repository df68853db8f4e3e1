// A throw-away CODEX_HOME holding the config.toml the reference's test harness writes
// (src/main/commands/mock-model/mock-config.ts), so every server reads the same file. Removing a home
// also sweeps any process a server left behind that still carries it (children.ts).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mockModelConfig } from '../../src/main/commands/mock-model/mock-config.js';
import { killStragglers } from './children.js';

/** Lets a closed thread unload at once, so unsubscribe → thread/closed is not a 60 s timer. */
export const UNLOAD_NOW = 'thread_unload_delay_secs = 0';

/** Homes created and neither removed nor kept yet: what an interrupted bench must delete. */
const liveHomes = new Set<string>();

/**
 * Creates a fresh home holding config.toml; the caller removes it with `removeHome`. With
 * `modelUrl` null the home names no provider, so thread-host answers with its embedded model
 * (a home only thread-host serves need not share the bench's one mock model).
 */
export function createHome(modelUrl: string | null, rootConfig = ''): string {
  const home = mkdtempSync(join(tmpdir(), 'thread-host-bench-'));
  writeFileSync(join(home, 'config.toml'), modelUrl === null ? `${rootConfig}\n` : mockModelConfig(modelUrl, rootConfig));
  liveHomes.add(home);
  return home;
}

/** Kills what the servers left running in a home that is kept for inspection. */
export function keepHome(home: string): string {
  liveHomes.delete(home);
  killStragglers(home);
  return home;
}

/** Removes every home still in use; synchronous, for Ctrl-C (kill the servers first). */
export function removeLiveHomes(): void {
  for (const home of liveHomes) removeHome(home);
}

/** Kills what the server left running in `home`, then deletes it. */
export function removeHome(home: string): void {
  liveHomes.delete(home);
  killStragglers(home);
  rmSync(home, { recursive: true, force: true });
}
