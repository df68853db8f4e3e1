// The user-role messages the reference's harness adds to a thread's history, which the model
// is given on later samplings and a resume replays (codex 0.171.0, probed): the note an
// interrupted turn leaves, and the result of a user's own command (thread/shellCommand). Each
// is one `response_item` whose `content_item_kinds` names it, so no reader takes it for the
// user's words.
import { randomFillSync } from 'node:crypto';
import { line } from './record-line.js';

/** What the model is told after a turn the user interrupted, word for word. */
export const TURN_ABORTED_TEXT =
  '<turn_aborted>\nThe user interrupted the previous turn on purpose. Any running unified exec processes may still be running in the background. If any tools/commands were aborted, they may have partially executed.\n</turn_aborted>';

export const TURN_ABORTED_KIND = 'generic.turn_aborted';
export const USER_SHELL_KIND = 'shell.user_command';

/** A user's command and its result, as the reference words it for the model. */
export function userShellText(command: string, exitCode: number, durationMs: number, output: string): string {
  const seconds = (durationMs / 1000).toFixed(4);
  return `<user_shell_command>\n<command>\n${command}\n</command>\n<result>\nExit code: ${exitCode}\nDuration: ${seconds} seconds\nOutput:\n${output}\n</result>\n</user_shell_command>`;
}

/** The note's `response_item`, with the reference's harness provenance. */
export function harnessNoteLine(text: string, kind: string, turnId: string, nowMs: number): string {
  return line('response_item', nowMs, {
    type: 'message',
    id: `msg_${messageUuid(nowMs)}`,
    role: 'user',
    content: [{ type: 'input_text', text }],
    internal_chat_message_metadata_passthrough: {
      turn_id: turnId,
      create_time: nowMs / 1000,
      content_item_kinds: [kind],
      content_item_metadata: [{ provenance: { type: 'harness', hook: false } }],
    },
  });
}

// The reference names its messages `msg_<uuid v7>`: the time in the first 48 bits, version and
// variant bits, the rest random. Notes are rare, so no pool of random bytes is kept.
function messageUuid(nowMs: number): string {
  const bytes = randomFillSync(Buffer.alloc(16));
  bytes.writeUIntBE(nowMs, 0, 6);
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
