// The tool calls of one sampling: each is recorded and handed to the host at once (the calls of
// one reply run together), each answer is recorded as it comes, and the outputs join the
// conversation after the calls, in the model's order.
import type { ToolAnswer } from '../../common/actor-messages.js';
import { systemClock } from '../../common/clock.js';
import { withDeadline } from '../../common/deadline.js';
import type { ConversationMessage } from '../../common/wire-types.js';
import { modelCallItem, toolCallOf } from './model-calls.js';
import type { ThreadState } from './thread-state.js';
import { toolOutputWithImages } from './tool-output-images.js';
import type { TurnWrites } from './turn-writes.js';

/** How long an interrupted turn waits for the host to answer its cancelled tool calls. */
const CANCELLED_ANSWERS_DEADLINE_MS = 5_000;

/** The turn's wait for something outside it, which an interrupt cuts short. */
export type AwaitOutside = <T>(pending: Promise<T>) => Promise<T | 'interrupted'>;

export class ToolCalls {
  readonly #thread: ThreadState;
  readonly #turnId: string;
  readonly #writes: TurnWrites;
  readonly #exchange: ConversationMessage[];
  /** The calls waiting for the host's answer, by call id. */
  readonly #answers = new Map<string, (answer: ToolAnswer) => void>();

  constructor(thread: ThreadState, turnId: string, writes: TurnWrites, exchange: ConversationMessage[]) {
    this.#thread = thread;
    this.#turnId = turnId;
    this.#writes = writes;
    this.#exchange = exchange;
  }

  /** The host's answer to a waiting call; false when no call waits under its id. */
  answer(answer: ToolAnswer): boolean {
    const resolve = this.#answers.get(answer.callId);
    if (resolve === undefined) return false;
    this.#answers.delete(answer.callId);
    resolve(answer);
    return true;
  }

  /** Hands every call to the host at once and waits (`awaitOutside`: holding no worker) for their answers. */
  async run(calls: readonly Record<string, unknown>[], awaitOutside: AwaitOutside): Promise<'answered' | 'interrupted'> {
    const { threadId, emit, clock, format } = this.#thread;
    const turnId = this.#turnId;
    const writes = this.#writes;
    const pending: Array<Promise<ToolAnswer>> = [];
    for (const raw of calls) {
      const call = toolCallOf(raw);
      writes.add('item', format.toolCall(raw, turnId, clock.now()));
      this.#exchange.push({ role: 'item', text: '', item: modelCallItem(raw) });
      pending.push(
        new Promise<ToolAnswer>((resolve) => this.#answers.set(call.callId, resolve)).then((answered) => {
          // A custom call (freeform input) is answered by a custom output, as the reference pairs them.
          const answer: ToolAnswer = { ...answered, outputType: call.kind === 'custom' ? 'custom_tool_call_output' : 'function_call_output' };
          const at = this.#thread.queueAnchored(writes, 'item', format.toolItem(answer, turnId, clock.now()));
          if (answer.item !== null) emit({ type: 'toolItemRecorded', threadId, turnId, itemId: answer.item.id, ordinal: at.item });
          // Its images are prepared here, in the worker, as a prompt's are, while the others wait.
          return toolOutputWithImages(answer);
        }),
      );
      emit({ type: 'toolCall', threadId, turnId, call, startedAtMs: clock.now() });
    }
    const all = Promise.all(pending);
    const waited = await awaitOutside(all);
    const interrupted = waited === 'interrupted';
    // Interrupted, the host cancels what the turn asked and answers each call as cancelled, as
    // the reference records them; those answers are awaited, within a deadline.
    const answers = waited !== 'interrupted' ? waited : await withDeadline(all, CANCELLED_ANSWERS_DEADLINE_MS, systemClock, () => null);
    this.#answers.clear();
    // The outputs are recorded once every call is answered, in the model's order, as the
    // reference records them (and as a resume gives them to the model again).
    for (const answer of answers ?? []) {
      const type = answer.outputType ?? 'function_call_output';
      writes.add('item', format.toolOutput(answer, turnId, clock.now()));
      this.#exchange.push({ role: 'item', text: '', item: { type, id: answer.outputId, call_id: answer.callId, output: answer.modelOutput ?? answer.output } });
    }
    return interrupted ? 'interrupted' : 'answered';
  }
}
