// The harness's notes a turn adds to the conversation, as the reference adds them: results of
// the user's own commands that joined the turn (given to the model at its next sampling), and
// the note an interrupted turn leaves for the model's next turn (harness-notes.ts has the texts).
import type { ConversationMessage } from '../../common/wire-types.js';
import { harnessNoteLine, TURN_ABORTED_KIND, TURN_ABORTED_TEXT, USER_SHELL_KIND } from '../rollout-writer/harness-notes.js';
import type { TurnEnd } from '../rollout-writer/rollout-format.js';

/** Notes for the history (their lines) and for the model (their messages). */
export interface TakenNotes {
  lines: string[];
  messages: ConversationMessage[];
}

export class TurnNotes {
  /** Results of the user's commands no sampling has taken yet. */
  readonly #waiting: string[] = [];

  userShell(text: string): void {
    this.#waiting.push(text);
  }

  get pending(): boolean {
    return this.#waiting.length > 0;
  }

  /** The waiting results, for the next sampling. */
  take(turnId: string, nowMs: number): TakenNotes {
    return taken(this.#waiting.splice(0).map((text) => ({ text, kind: USER_SHELL_KIND })), turnId, nowMs);
  }

  /** What the turn's end adds before its end line: results no sampling took, and an interrupted turn's note. */
  closing(end: TurnEnd, turnId: string, nowMs: number): TakenNotes {
    const notes = this.#waiting.splice(0).map((text) => ({ text, kind: USER_SHELL_KIND }));
    if (end.status === 'interrupted') notes.push({ text: TURN_ABORTED_TEXT, kind: TURN_ABORTED_KIND });
    return taken(notes, turnId, nowMs);
  }
}

function taken(notes: Array<{ text: string; kind: string }>, turnId: string, nowMs: number): TakenNotes {
  return {
    lines: notes.map(({ text, kind }) => harnessNoteLine(text, kind, turnId, nowMs)),
    messages: notes.map(({ text }) => ({ role: 'user', text })),
  };
}
