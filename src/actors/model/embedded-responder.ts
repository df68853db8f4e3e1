// The built-in model used when no provider is configured: it echoes the user, streams the echo
// like a real model would (start, deltas, done, completed) and counts words as tokens. Asked
// for a compaction's summary, it lists what the user said. No network and no randomness, so
// demos and tests get the same reply every time.

import { COMPACTION_PROMPT, isSummaryMessage, SUMMARY_PREFIX } from '../../common/rollout/compaction.js';
import { isHarnessNoteText } from '../../common/rollout/rollout-items.js';
import type { ConversationMessage, ModelUsage } from '../../common/wire-types.js';
import { ModelAbortedError, type ModelClient, type ModelEvent, type ModelRequest } from './model-client.js';

// Enough deltas to exercise streaming clients, few enough to keep a turn cheap.
const MAX_DELTA_CHUNKS = 8;

/** A deterministic echo "model". */
export class EmbeddedResponder implements ModelClient {
  async *stream(request: ModelRequest): AsyncGenerator<ModelEvent, void, undefined> {
    const { signal } = request;
    const n = countUserMessages(request.history) + 1;
    const reply =
      request.userText === COMPACTION_PROMPT ? summaryOf(request.history)
      : n === 1 ? `You said: ${request.userText}`
      : `You said: ${request.userText} (message ${n} in this thread)`;
    const itemId = `msg-embedded-${n}`;

    const events: ModelEvent[] = [{ type: 'messageStarted', itemId }];
    for (const delta of deltaChunks(reply)) events.push({ type: 'textDelta', itemId, delta });
    events.push({ type: 'messageDone', itemId, text: reply });
    events.push({ type: 'completed', responseId: `resp-embedded-${n}`, usage: usageFor(request, reply) });

    for (const event of events) {
      // Checked before every event: an abort between two deltas stops the reply there.
      if (signal.aborted) throw new ModelAbortedError();
      yield event;
    }
  }
}

// An earlier summary is not something the user said, nor is a note of the harness's.
function countUserMessages(history: ConversationMessage[]): number {
  let users = 0;
  for (const message of history) if (message.role === 'user' && !isSummaryMessage(message.text) && !isHarnessNoteText(message.text)) users += 1;
  return users;
}

/** A compaction's summary: the user's messages so far, an earlier summary's included. */
function summaryOf(history: ConversationMessage[]): string {
  const said: string[] = [];
  for (const message of history) {
    if (message.role !== 'user' || isHarnessNoteText(message.text)) continue;
    if (isSummaryMessage(message.text)) said.push(message.text.slice(SUMMARY_PREFIX.length + 1).replace(/^The user said: /, '').replace(/\.$/, ''));
    else said.push(JSON.stringify(message.text));
  }
  return said.length === 0 ? 'Nothing was said in this thread yet.' : `The user said: ${said.join(', ')}.`;
}

/** Splits into word-plus-trailing-space pieces, merged evenly into at most 8 chunks. */
export function deltaChunks(text: string): string[] {
  const words = text.match(/\s*\S+\s*/g) ?? [text];
  const chunkCount = Math.min(MAX_DELTA_CHUNKS, words.length);
  const base = Math.floor(words.length / chunkCount);
  const extra = words.length % chunkCount; // the first `extra` chunks take one more word
  const chunks: string[] = [];
  let next = 0;
  for (let i = 0; i < chunkCount; i += 1) {
    const size = base + (i < extra ? 1 : 0);
    chunks.push(words.slice(next, next + size).join(''));
    next += size;
  }
  return chunks;
}

function usageFor(request: ModelRequest, reply: string): ModelUsage {
  let inputTokens = countWords(request.userText);
  for (const message of request.history) inputTokens += countWords(message.text);
  const outputTokens = countWords(reply);
  return { inputTokens, cachedInputTokens: 0, outputTokens, reasoningOutputTokens: 0, totalTokens: inputTokens + outputTokens };
}

function countWords(text: string): number {
  return text.match(/\S+/g)?.length ?? 0;
}
