// An ActorResumeState with N turns, shaped like a real cold resume's: each turn a user message
// and an agent reply of a few hundred characters, ids and timestamps varying per turn so no
// codec gets identical strings for free. Deterministic, so the worker that sends it and the
// main thread that checks it build the same value.
import { fullTurns } from '../../src/common/rollout/history-view.js';
import type { ActorResumeState } from '../../src/common/actor-messages.js';
import type { Turn, TurnId } from '../../src/common/wire-types.js';

/** The history sizes the snapshot comparison measures (turns per thread). */
export const SNAPSHOT_SIZES = [10, 100, 1000, 5000] as const;

const STARTED_AT_MS = 1_796_206_774_828;

/** A UUIDv7-shaped id that differs in its low digits per `n` and `salt`. */
function id(n: number, salt: number): string {
  const hex = (n * 16 + salt).toString(16).padStart(12, '0');
  return `019ad6a4-4410-7392-9ce9-${hex}`;
}

function turn(i: number): Turn {
  const startedAtMs = STARTED_AT_MS + i * 61_000;
  const userText = `Turn ${i}: please check why thread ${i % 97} unloads only after the delay since its last unsubscribe.`;
  const agentText =
    `Reply ${i}: the supervisor sweeps once per tick with an injected clock and re-checks eligibility inside the ` +
    `actor's mailbox before committing the unload, so a subscribe that arrives first wins; thread ${i % 97} was ` +
    `idle for ${(i * 7) % 600} s with no subscribers, hence the unload at the next sweep.`;
  return {
    id: id(i, 1) as TurnId,
    rootTurnId: id(i, 1) as TurnId,
    items: [
      { type: 'userMessage', id: id(i, 2), clientId: null, content: [{ type: 'text', text: userText, text_elements: [] }], startedAtMs, completedAtMs: startedAtMs },
      {
        type: 'agentMessage',
        moderation: null,
        id: id(i, 3),
        text: agentText,
        phase: null,
        memoryCitation: null,
        delivery: null,
        questions: null,
        startedAtMs: startedAtMs + 40,
        completedAtMs: startedAtMs + 1_480,
      },
    ],
    itemsView: 'full',
    status: 'completed',
    error: null,
    startedAt: Math.floor(startedAtMs / 1000),
    completedAt: Math.floor((startedAtMs + 1_480) / 1000),
    durationMs: 1_480,
  };
}

export function sampleResumeState(turns: number): ActorResumeState {
  const usage = { inputTokens: 48_211, cachedInputTokens: 40_960, outputTokens: 1_873, reasoningOutputTokens: 0, totalTokens: 50_084 };
  const history = Array.from({ length: turns }, (_, i) => turn(i));
  return {
    historyMode: 'paginated',
    forkedFromId: null,
    dynamicTools: null,
    turns: history,
    // A turn of the reference's paginated layout takes 9 lines after the file's first record.
    positions: Array.from({ length: turns }, (_, i) => ({ ordinal: 1 + 9 * i, items: [4 + 9 * i, 5 + 9 * i] })),
    preview: 'Turn 0: please check why thread 0 unloads only after the delay since its last unsubscribe.',
    updatedAtMs: STARTED_AT_MS + turns * 61_000,
    createdAtMs: STARTED_AT_MS,
    cwd: '/home/user/project',
    originator: 'codex_vscode',
    cliVersion: '0.171.0',
    source: 'vscode',
    modelProvider: 'openai',
    model: 'gpt-5.1-codex',
    lastTokenUsage: { total: usage, last: usage, modelContextWindow: 258_400 },
    fullTurnsJson: new Uint8Array(Buffer.from(JSON.stringify(fullTurns('paginated', history)))),
  };
}
