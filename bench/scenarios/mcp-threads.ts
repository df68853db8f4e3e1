// Many threads, one MCP server configured: each thread runs one turn whose model calls one tool
// of it (the fixture stdio server, test/fixtures/mcp/stdio-server.mjs). Counted once every turn
// completed: the MCP server processes running under the server (thread-host shares one session
// per launch; the reference starts one per thread) and the resident memory of the server and
// everything it started.
import { join } from 'node:path';
import { functionCallItem, messageItem } from '../../src/main/commands/mock-model/mock-model-server.js';
import { treeProcessesRunning, treeRssKb } from '../lib/proc-tree.js';
import { REPO_ROOT } from '../lib/repo-paths.js';
import { SINGLE_CASE, textInput, withServer, type Scenario } from './scenario.js';

const FIXTURE = join(REPO_ROOT, 'test', 'fixtures', 'mcp', 'stdio-server.mjs');
const TURN_DEADLINE_MS = 120_000;

export const mcpThreads: Scenario = {
  name: 'mcp-threads',
  summary: 'N threads each calling one tool of the one configured MCP server: MCP processes started and resident memory',
  cases: () => SINGLE_CASE,
  async run(ctx) {
    const { rec, params, mock } = ctx;
    const rootConfig = `mcp_servers = { fx = { command = ${JSON.stringify(process.execPath)}, args = [${JSON.stringify(FIXTURE)}] } }`;
    await withServer(ctx, { rootConfig }, async (client) => {
      const threads: string[] = [];
      for (let i = 0; i < params.mcpThreads; i += 1) threads.push((await client.request('thread/start', {})).thread.id as string);
      let failed = 0;
      // One turn at a time, so the mock's two replies of a turn (the call, then the answer
      // after its output) pair with that turn's two requests.
      for (const [i, threadId] of threads.entries()) {
        mock.enqueue({ kind: 'output', items: [functionCallItem(`call_${i}`, 'echo', { text: `t${i}` }, 'mcp__fx')] });
        mock.enqueue({ kind: 'output', items: [messageItem(`msg_${i}`, 'Done')] });
        const completed = client.waitFor('turn/completed', threadId, TURN_DEADLINE_MS);
        await client.request('turn/start', { threadId, input: textInput(`call echo ${i}`) }, TURN_DEADLINE_MS);
        if ((await completed).params.turn?.status !== 'completed') failed += 1;
        ctx.progress((i + 1) / threads.length);
      }
      const pid = client.pid ?? -1;
      rec.figure('MCP server processes', treeProcessesRunning(pid, FIXTURE).length, 'count');
      rec.figure('RSS with its children', treeRssKb(pid), 'kB');
      rec.figure('turns failed', failed, 'count');
      rec.check(failed === 0, `${failed} turns did not complete`);
    });
  },
};
