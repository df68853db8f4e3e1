// The MCP fixture servers (test/fixtures/mcp/) as launches, and probes of their processes.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpHub, type McpStartupEvent } from '../../src/main/tools/mcp/mcp-hub.js';
import { resolveLaunch, type McpLaunch } from '../../src/main/tools/mcp/mcp-launch.js';
import { resolveMcpServer } from '../../src/main/tools/mcp/mcp-server-config.js';
import { afterAll, beforeAll } from 'vitest';
import { startMockModel, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { FakeClock } from './fake-clock.js';

const STDIO_SERVER = fileURLToPath(new URL('../fixtures/mcp/stdio-server.mjs', import.meta.url));
const HTTP_SERVER = fileURLToPath(new URL('../fixtures/mcp/http-server.mjs', import.meta.url));

/** A scratch directory whose `starts` file the stdio fixture appends to on every start. */
export class FixtureDir {
  readonly path = mkdtempSync(join(tmpdir(), 'mcp-fixture-'));
  readonly startsFile = join(this.path, 'starts');

  /** `[pid, tag]` of every start so far, in order. */
  starts(): [number, string][] {
    let text = '';
    try {
      text = readFileSync(this.startsFile, 'utf8');
    } catch {
      return [];
    }
    return text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => {
        const [pid, tag] = line.split(' ');
        return [Number(pid), tag ?? ''];
      });
  }

  remove(): void {
    rmSync(this.path, { recursive: true, force: true });
  }
}

/** The stdio fixture as a `[mcp_servers.<name>]` table resolves, with `env` added to its environment. */
export function stdioLaunch(dir: FixtureDir, table: Record<string, unknown> = {}, env: Record<string, string> = {}, name = 'fixture'): McpLaunch {
  const config = resolveMcpServer(name, {
    command: process.execPath,
    args: [STDIO_SERVER],
    env: { MCP_FIXTURE_PID_FILE: dir.startsFile, ...env },
    ...table,
  });
  return resolveLaunch(config, { PATH: process.env.PATH });
}

/** Whether a process with `pid` runs: a zombie (dead, not yet reaped by its new parent) does not. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // /proc/<pid>/stat: "pid (comm) S ...", S the state letter.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** The HTTP fixture, running, with its URL. */
export async function startHttpFixture(token: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [HTTP_SERVER], { env: { ...process.env, MCP_FIXTURE_TOKEN: token }, stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.stdout!.once('data', (chunk: Buffer) => resolve((JSON.parse(chunk.toString()) as { port: number }).port));
  });
  return { url: `http://127.0.0.1:${port}/mcp`, child };
}

/** A hub on a fake clock that records its startup events, with a scratch fixture dir. */
export function hubScene(): { dir: FixtureDir; clock: FakeClock; events: McpStartupEvent[]; hub: McpHub } {
  const clock = new FakeClock();
  const events: McpStartupEvent[] = [];
  return { dir: new FixtureDir(), clock, events, hub: new McpHub({ clock, onStartupStatus: (event) => events.push(event) }) };
}

/** A mock model answering "Done" and a fixture dir for the file's tests; the getters are valid inside tests. */
export function mockAndFixture(): { readonly mock: MockModel; readonly fixture: FixtureDir } {
  const state: { mock?: MockModel; fixture?: FixtureDir } = {};
  beforeAll(async () => {
    state.mock = await startMockModel({ reply: 'Done' });
    state.fixture = new FixtureDir();
  });
  afterAll(async () => {
    await state.mock?.close();
    state.fixture?.remove();
  });
  return {
    get mock() {
      return state.mock!;
    },
    get fixture() {
      return state.fixture!;
    },
  };
}
