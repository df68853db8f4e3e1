// What a compaction makes of a thread's conversation, shared by the actor that compacts and the
// reader that rebuilds a compacted thread from its rollout. As the reference's local compaction
// (codex-rs core `compact.rs`, 0.171.0): the model is asked for a handoff summary with
// COMPACTION_PROMPT, and the conversation is replaced by the user's own messages (the most
// recent ones, within a budget; earlier summaries are not kept) followed by the summary as a
// user message behind SUMMARY_PREFIX. A resumed thread sends the model that, never the
// dropped turns.
import type { ConversationMessage } from '../wire-types.js';

/** The reference's `SUMMARIZATION_PROMPT`, sent as the user's message of the compaction's sampling. */
export const COMPACTION_PROMPT =
  'You are performing a CONTEXT CHECKPOINT COMPACTION. Create a handoff summary for another LLM that will resume the task.\n\n' +
  'Include:\n' +
  '- Current progress and key decisions made\n' +
  '- Important context, constraints, or user preferences\n' +
  '- What remains to be done (clear next steps)\n' +
  '- Any critical data, examples, or references needed to continue\n\n' +
  'Be concise, structured, and focused on helping the next LLM seamlessly continue the work.\n';

/** The reference's `SUMMARY_PREFIX`: what stands before the summary in the kept conversation. */
export const SUMMARY_PREFIX =
  'Another language model started to solve this problem and produced a summary of its thinking process. ' +
  'You also have access to the state of the tools that were used by that language model. ' +
  'Use this to build on the work that has already been done and avoid duplicating work. ' +
  'Here is the summary produced by the other language model, use the information in this summary to assist with your own analysis:';

/** The reference's `COMPACT_USER_MESSAGE_MAX_TOKENS`, counted here as the reference approximates tokens (4 bytes each). */
const KEPT_USER_MESSAGE_BYTES = 20_000 * 4;

/** The summary as the conversation keeps it (the `compacted` record's `message`). */
export function summaryMessage(summary: string): string {
  return `${SUMMARY_PREFIX}\n${summary}`;
}

/** Whether a user-role text is a summary an earlier compaction left. */
export function isSummaryMessage(text: string): boolean {
  return text.startsWith(`${SUMMARY_PREFIX}\n`);
}

/**
 * The conversation after a compaction: the user's own messages, newest kept first until the
 * budget runs out (a message that does not fit whole is cut at its end), then the summary.
 */
export function compactedConversation(history: readonly ConversationMessage[], summaryText: string): ConversationMessage[] {
  const kept: ConversationMessage[] = [];
  let budget = KEPT_USER_MESSAGE_BYTES;
  for (let i = history.length - 1; i >= 0 && budget > 0; i -= 1) {
    const message = history[i]!;
    if (message.role !== 'user' || isSummaryMessage(message.text)) continue;
    const bytes = Buffer.byteLength(message.text, 'utf8');
    const text = bytes <= budget ? message.text : Buffer.from(message.text, 'utf8').subarray(0, budget).toString('utf8');
    kept.unshift({ role: 'user', text });
    budget -= bytes;
  }
  kept.push({ role: 'user', text: summaryText });
  return kept;
}
