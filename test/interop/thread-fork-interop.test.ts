// Opt-in (`npm run test:interop`): thread/fork on a home shared with the real reference,
// codex-cli 0.171.0, both ways: one side writes a thread, the other forks it (cold, up to its
// first turn) and runs a turn on the fork; then each side reads the fork cold, and both reads
// are the same thread, with the forked-in turn and the fork's own.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { referenceAndMock } from './reference-and-mock.js';
import { mockModelConfig, TestServer, type Message } from '../helpers/test-server.js';

type Side = 'thread-host' | 'codex';

const reference = referenceAndMock();

function startSide(side: Side, home: string): Promise<TestServer> {
  return TestServer.start({ home, keepConfig: true, ...(side === 'codex' ? { command: [reference.codex, 'app-server', '--listen', 'stdio://'] } : {}) });
}

async function turn(server: TestServer, threadId: string, text: string): Promise<string> {
  const { turn: started } = await server.request('turn/start', { threadId, input: [{ type: 'text', text }] });
  await server.waitForNotification('turn/completed', (p: Message) => p.turn.id === started.id, 20_000);
  return started.id;
}

// What both sides show of a thread read from its rollout alone. Not the preview: the reference
// takes it from its state database, which, for a fork another writer made, it fills from the
// fork's own lines (its first user message after the fork), while the fork it makes itself
// shows its source's first message, as thread-host shows every fork.
const shown = (thread: Message) => ({
  id: thread.id,
  forkedFromId: thread.forkedFromId,
  historyMode: thread.historyMode,
  path: thread.path,
  turns: thread.turns,
});

for (const [writer, forker] of [['thread-host', 'codex'], ['codex', 'thread-host']] as const) {
  for (const historyMode of ['paginated', 'legacy']) {
    test(`${forker} forks a ${historyMode} thread ${writer} wrote, and both read the fork alike`, async () => {
      const home = mkdtempSync(join(tmpdir(), 'thread-host-interop-fork-'));
      writeFileSync(join(home, 'config.toml'), mockModelConfig(reference.mock.url, 'thread_unload_delay_secs = 0'));
      try {
        const first = await startSide(writer, home);
        const { thread: source } = await first.request('thread/start', { historyMode });
        const kept = await turn(first, source.id, 'kept');
        await turn(first, source.id, 'left out');
        expect(await first.close()).toBe(0);

        const second = await startSide(forker, home);
        const { thread: fork } = await second.request('thread/fork', { threadId: source.id, lastTurnId: kept });
        await turn(second, fork.id, 'after the fork');
        expect(await second.close()).toBe(0);

        const reads: Message[] = [];
        for (const side of ['thread-host', 'codex'] as const) {
          const reader = await startSide(side, home);
          reads.push((await reader.request('thread/read', { threadId: fork.id, includeTurns: true })).thread);
          expect(await reader.close()).toBe(0);
        }
        expect(shown(reads[0]!)).toEqual(shown(reads[1]!));
        expect(reads[0]!.preview).toBe('kept');
        expect([reads[0]!.forkedFromId, reads[0]!.historyMode, reads[0]!.turns.map((t: Message) => t.items[0].content[0].text)]).toEqual([
          source.id,
          historyMode,
          ['kept', 'after the fork'],
        ]);
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
    });
  }
}
