// The end of a handoff run: each implementation in the run starts a fresh process on the home
// and reads every thread with its turns, as the verdict (handoff-verdict.ts) takes them.
import { AppServerClient } from './app-server-client.js';
import type { CaseRecorder } from './case-result.js';
import type { HistoryRead, ReadTurn } from './handoff-verdict.js';
import type { ServerCommand } from './server-command.js';
import { firstLine } from '../scenarios/scenario.js';

const STEP_DEADLINE_MS = 30_000;

/** Each implementation in the run reads every thread from a fresh process of its own. */
export async function readBack(fleet: readonly ServerCommand[], home: string, threads: string[], rec: CaseRecorder): Promise<HistoryRead[]> {
  const reads: HistoryRead[] = [];
  for (const server of fleet) {
    const client = await AppServerClient.start(server, home);
    try {
      for (const threadId of threads) {
        try {
          const { thread } = await client.request('thread/read', { threadId, includeTurns: true }, STEP_DEADLINE_MS);
          reads.push({ reader: server.name, threadId, turns: (thread.turns as unknown[]).map(readTurn), error: null });
        } catch (error) {
          reads.push({ reader: server.name, threadId, turns: null, error: firstLine(error) });
        }
      }
    } finally {
      const { code, signal } = await client.close();
      rec.check(code === 0, `reader ${server.name}: exit ${code ?? signal} after stdin EOF`);
    }
  }
  return reads;
}

/** A wire turn as the verdict sees it: id, status, and the texts of its user messages. */
function readTurn(wire: unknown): ReadTurn {
  const turn = wire as { id: string; status: string; items?: Array<{ type: string; content?: Array<{ type: string; text?: string }> }> };
  const texts = (turn.items ?? []).filter((i) => i.type === 'userMessage').flatMap((i) => (i.content ?? []).flatMap((c) => (typeof c.text === 'string' ? [c.text] : [])));
  return { id: turn.id, status: turn.status, texts };
}

