// A rollout's recorded source is its thread's, whether the thread is read cold, listed or
// resumed: the answers below are codex-cli 0.171.0's for the same files (a recorded `mcp` shows
// as `appServer`; a spawned sub-agent shows its source whole, with its nickname and role).
import { describe, expect, test } from 'vitest';
import { TestServer, type Message } from '../helpers/test-server.js';
import { fixedThreadId as id } from '../helpers/fixed-ids.js';
import { writeMinimalRollout } from '../helpers/minimal-rollout.js';

const SPAWNED = { subagent: { thread_spawn: { parent_thread_id: id(9), depth: 1, agent_nickname: 'nick', agent_role: 'role' } } };
const CASES: Array<{ recorded: unknown; source: unknown; agentNickname: string | null; agentRole: string | null }> = [
  { recorded: 'exec', source: 'exec', agentNickname: null, agentRole: null },
  { recorded: 'mcp', source: 'appServer', agentNickname: null, agentRole: null },
  {
    recorded: SPAWNED,
    source: { subAgent: { thread_spawn: { parent_thread_id: id(9), depth: 1, agent_path: null, agent_nickname: 'nick', agent_role: 'role' } } },
    agentNickname: 'nick',
    agentRole: 'role',
  },
];

const shown = (thread: Message) => ({ source: thread.source, agentNickname: thread.agentNickname, agentRole: thread.agentRole });

describe('a recorded session source', () => {
  test('is shown by a cold read, a listing, a resume and a read of the resumed thread', async () => {
    const server = await TestServer.start();
    try {
      CASES.forEach(({ recorded }, i) => writeMinimalRollout(server.home, { threadId: id(i + 1), created: `2026-11-01T10:00:0${i}.000Z`, message: `m${i + 1}`, source: recorded }));
      const listed = await server.request('thread/list', { sourceKinds: ['exec', 'appServer', 'subAgent'] });
      expect(listed.data.map((thread: Message) => [thread.id, shown(thread)])).toEqual(
        CASES.map(({ recorded: _recorded, ...expected }, i) => [id(i + 1), expected]).reverse(),
      );
      for (const [i, { recorded: _recorded, ...expected }] of CASES.entries()) {
        const threadId = id(i + 1);
        expect(shown((await server.request('thread/read', { threadId })).thread)).toEqual(expected);
        expect(shown((await server.request('thread/resume', { threadId })).thread)).toEqual(expected);
        expect(shown((await server.request('thread/read', { threadId })).thread)).toEqual(expected);
      }
    } finally {
      await server.close();
    }
  });
});
