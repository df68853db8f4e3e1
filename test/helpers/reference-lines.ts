// Comparing thread-host's answers with the reference's recorded ones
// (test/fixtures/reference-answers): the recorders' normalization, and the conversation a
// model request carries as they kept it.
import type { Message } from './test-server.js';

const UUID_V7 = /[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const TIME_KEYS = new Set(['startedAt', 'completedAt', 'durationMs', 'startedAtMs', 'completedAtMs']);

/** The thread's id becomes `<thread>`, every other id `<id-N>` by first appearance, times their type. */
export function normalizedLines(lines: Message[], threadId: string): Message[] {
  let text = lines.map((line) => JSON.stringify(line)).join('\n').replaceAll(threadId, '<thread>');
  [...new Set(text.match(UUID_V7) ?? [])].forEach((id, i) => (text = text.replaceAll(id, `<id-${i + 1}>`)));
  return text.split('\n').map((line) => JSON.parse(line, (key, value) => (TIME_KEYS.has(key) && value !== null ? typeof value : value)) as Message);
}

/** A request's messages other than developer instructions and the environment context, as [role, text]. */
export function conversationOf(input: Message[]): string[][] {
  return input
    .filter((m) => m.type === 'message' && m.role !== 'developer' && !m.content[0].text.startsWith('<environment_context>'))
    .map((m) => [m.role, m.content[0].text]);
}
