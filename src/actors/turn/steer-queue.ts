// Input steered into a running turn, on its way to the turn's record. Text alone is recorded at
// once; a message with images is recorded once the worker has read and prepared them (without
// holding the worker), and every message in the order it came. While the turn's tool calls
// wait, ready messages are held and recorded after the calls' outputs, as the reference orders
// them.
import type { SteerCommand } from '../../common/actor-messages.js';
import { workerLog } from '../worker-log.js';
import { carriesImages, textContentOf, userContentOf, type UserContent } from './user-content.js';

export type RecordSteer = (command: SteerCommand, content: UserContent) => void;

export class SteerQueue {
  readonly #record: RecordSteer;
  readonly #context: { threadId: string; turnId: string };
  /** The messages being prepared, chained so that each is recorded after the one before. */
  #chain: Promise<void> = Promise.resolve();
  #preparing = 0;
  #held: Array<{ command: SteerCommand; content: UserContent }> | null = null;

  constructor(record: RecordSteer, context: { threadId: string; turnId: string }) {
    this.#record = record;
    this.#context = context;
  }

  add(command: SteerCommand): void {
    if (this.#preparing === 0 && !carriesImages(command.input)) {
      this.#deliver(command, textContentOf(command.input));
      return;
    }
    this.#preparing += 1;
    // Each message is prepared at once; they are recorded in the order they came.
    const prepared = userContentOf(command.input).catch((error: unknown) => {
      workerLog('error', 'steered images could not be prepared', { ...this.#context, error: String(error) });
      return textContentOf(command.input);
    });
    this.#chain = this.#chain
      .then(() => prepared)
      .then((content) => {
        this.#preparing -= 1;
        this.#deliver(command, content);
      });
  }

  /** Messages are still being prepared. */
  get preparing(): boolean {
    return this.#preparing > 0;
  }

  /** Settles when what is being prepared now has been recorded (or held). */
  get settled(): Promise<void> {
    return this.#chain;
  }

  /** Until `release`, ready messages wait: the turn's tool calls are pending. */
  hold(): void {
    this.#held = [];
  }

  release(): void {
    const held = this.#held ?? [];
    this.#held = null;
    for (const { command, content } of held) this.#record(command, content);
  }

  #deliver(command: SteerCommand, content: UserContent): void {
    if (this.#held !== null) this.#held.push({ command, content });
    else this.#record(command, content);
  }
}
