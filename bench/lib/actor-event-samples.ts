// One realistic ActorEvent per kind that crosses worker → main during a turn, sized like a
// real session: a few-character streaming delta, a paragraph of user text, a multi-paragraph
// agent reply, a token-usage snapshot, and the turn's end. Deterministic, so both threads
// build identical samples and the main thread can check a decoded event field for field.
import type { ActorEvent } from '../../src/common/actor-messages.js';
import type { AgentMessageItem, ModelUsage, UserMessageItem } from '../../src/common/wire-types.js';

/** The event kinds the codec bench measures, by their ActorEvent `type` (userItem etc.). */
export const EVENT_KINDS = ['agentDelta', 'userItem', 'agentItemCompleted', 'tokenUsage', 'turnEnded'] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

const THREAD_ID = '019ad6a4-4410-7392-9ce9-3a08921e3af1';
const TURN_ID = '019ad6a4-49fd-7c21-8a55-0f3b2d9c6e12';
const STARTED_AT_MS = 1_796_206_774_828;

const USER_TEXT =
  'Please look at src/actors/supervisor.ts and explain why an idle thread with no subscribers is ' +
  'unloaded only after the delay has passed since the later of its last unsubscribe and its last ' +
  'turn, and whether a resume that arrives during unloading can be lost.';

// About 1.2 kB: a typical final answer of a few paragraphs.
const AGENT_TEXT = Array.from(
  { length: 6 },
  (_, i) =>
    `Paragraph ${i + 1}: the supervisor sweeps once per tick with an injected clock, re-checks ` +
    `eligibility inside the actor's mailbox, and only then commits the unload, so a late subscribe wins.`,
).join('\n\n');

function usage(input: number, cached: number, output: number): ModelUsage {
  return { inputTokens: input, cachedInputTokens: cached, outputTokens: output, reasoningOutputTokens: 0, totalTokens: input + output };
}

export function sampleEvent(kind: EventKind): ActorEvent {
  switch (kind) {
    case 'agentDelta':
      return { type: 'agentDelta', threadId: THREAD_ID, turnId: TURN_ID, itemId: 'msg-1', delta: ' mailbox, so a' };
    case 'userItem': {
      const item: UserMessageItem = {
        type: 'userMessage',
        id: '019ad6a4-4a11-7e4b-9a0c-5b2e7d1f3c44',
        clientId: null,
        content: [{ type: 'text', text: USER_TEXT, text_elements: [] }],
        startedAtMs: STARTED_AT_MS,
        completedAtMs: STARTED_AT_MS,
      };
      return { type: 'userItem', threadId: THREAD_ID, turnId: TURN_ID, item, ordinal: 17 };
    }
    case 'agentItemCompleted': {
      const item: AgentMessageItem = {
        type: 'agentMessage',
        moderation: null,
        id: 'msg-1',
        text: AGENT_TEXT,
        phase: null,
        memoryCitation: null,
        delivery: null,
        questions: null,
        startedAtMs: STARTED_AT_MS + 31,
        completedAtMs: STARTED_AT_MS + 1_480,
      };
      return { type: 'agentItemCompleted', threadId: THREAD_ID, turnId: TURN_ID, item, ordinal: 18 };
    }
    case 'tokenUsage':
      return {
        type: 'tokenUsage',
        threadId: THREAD_ID,
        turnId: TURN_ID,
        usage: { total: usage(48_211, 40_960, 1_873), last: usage(9_877, 8_192, 402), modelContextWindow: 258_400 },
      };
    case 'turnEnded':
      return {
        type: 'turnEnded',
        threadId: THREAD_ID,
        turnId: TURN_ID,
        status: 'completed',
        error: null,
        completedAtMs: STARTED_AT_MS + 1_481,
        durationMs: 1_481,
        persisted: true,
      };
  }
}
