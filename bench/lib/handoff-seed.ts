// The handoff race's start: server A starts T threads with one turn each (so the store has
// them), records each turn as sent and acknowledged, unloads the threads and exits, so that
// every racing process starts from threads no one holds.
import { AppServerClient } from './app-server-client.js';
import type { CaseRecorder } from './case-result.js';
import type { SentTurn } from './handoff-verdict.js';
import type { ServerCommand } from './server-command.js';
import { textInput } from '../scenarios/scenario.js';

const STEP_DEADLINE_MS = 30_000;

/** Server A starts T threads with one turn each in `home`, unloads them, exits; the thread ids. */
export async function seedThreads(server: ServerCommand, home: string, count: number, historyMode: string, sent: SentTurn[], rec: CaseRecorder): Promise<string[]> {
  const client = await AppServerClient.start(server, home);
  const label = `seed ${server.name} pid ${client.pid}`;
  try {
    const threads: string[] = [];
    for (let i = 0; i < count; i += 1) {
      const { thread } = await client.request('thread/start', { historyMode }, STEP_DEADLINE_MS);
      const threadId = String(thread.id);
      const token = `[hx seed ${i}]`;
      const turn: SentTurn = { threadId, token, turnId: null, process: label, outcome: 'cut', status: null };
      const completed = client.waitFor('turn/completed', threadId, STEP_DEADLINE_MS);
      sent.push(turn);
      const reply = await client.request('turn/start', { threadId, input: textInput(`handoff ${token}`) }, STEP_DEADLINE_MS);
      turn.turnId = String(reply.turn?.id ?? '') || null;
      turn.status = String((await completed).params.turn?.status);
      turn.outcome = 'acknowledged';
      threads.push(threadId);
    }
    for (const threadId of threads) {
      const closed = client.waitFor('thread/closed', threadId, STEP_DEADLINE_MS);
      await client.request('thread/unsubscribe', { threadId }, STEP_DEADLINE_MS);
      await closed;
    }
    return threads;
  } finally {
    const { code, signal } = await client.close();
    rec.check(code === 0, `${label}: exit ${code ?? signal} after stdin EOF`);
  }
}
