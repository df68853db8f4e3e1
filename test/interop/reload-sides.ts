// What the config/mcpServer/reload interop scripts share: each side's server in a home of its
// own (config.toml kept as the script writes it, HOME an empty directory so `bash -lc` finds no
// profile to wait on, TMPDIR inside the home), and one script run on both sides.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FixtureDir } from '../helpers/mcp-fixtures.js';
import { TestServer } from '../helpers/test-server.js';

export type Side = 'thread-host' | 'codex';

/** The side's server on `home`; `codex` is the reference's binary. */
export function startSide(side: Side, home: string, codex: string): Promise<TestServer> {
  const empty = join(home, 'empty-home');
  mkdirSync(empty);
  mkdirSync(join(home, 'tmpdir'));
  const env = { TMPDIR: join(home, 'tmpdir'), HOME: empty, RUST_BACKTRACE: '0' };
  return TestServer.start({ home, keepConfig: true, env, ...(side === 'codex' ? { command: [codex, 'app-server', '--listen', 'stdio://'] } : {}) });
}

/** `script` on the reference, then on thread-host, each in a new home and fixture directory; the home's path reads `<home>`. */
export async function runOnBothSides<T>(script: (side: Side, home: string, fixture: FixtureDir) => Promise<T>): Promise<Record<Side, T>> {
  const runs: Partial<Record<Side, T>> = {};
  for (const side of ['codex', 'thread-host'] as const) {
    const home = mkdtempSync(join(tmpdir(), 'thread-host-interop-reload-'));
    const fixture = new FixtureDir();
    try {
      runs[side] = JSON.parse(JSON.stringify(await script(side, home, fixture)).split(home).join('<home>')) as T;
    } finally {
      fixture.remove();
      rmSync(home, { recursive: true, force: true });
    }
  }
  return runs as Record<Side, T>;
}
