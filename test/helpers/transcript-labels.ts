// Labels for the values of a recorded transcript that differ from run to run (thread, turn and
// file ids, revisions): each is named by its first appearance, so a recording of the reference
// and a run of thread-host compare line by line, and params written with labels are sent with
// the values they stand for.
import type { Message } from './test-server.js';

/** Per JSON key, the label prefix of the new values found under it (`turnId` → `<turn-N>`). */
export type LabelRules = Record<string, { prefix: string; keep?: (value: string) => boolean }>;

export class TranscriptLabels {
  readonly #byValue = new Map<string, string>();
  readonly #byLabel = new Map<string, string>();
  readonly #counts = new Map<string, number>();

  constructor(private readonly rules: LabelRules) {}

  name(value: string, label: string): void {
    this.#byValue.set(value, label);
    this.#byLabel.set(label, value);
  }

  /** `<prefix-N>` for a new value, numbered per prefix. */
  label(value: string, prefix: string): void {
    if (this.#byValue.has(value)) return;
    const count = (this.#counts.get(prefix) ?? 0) + 1;
    this.#counts.set(prefix, count);
    this.name(value, `<${prefix}-${count}>`);
  }

  /** The value with every known value replaced by its label (new ones named by the rules), keys too. */
  normalised(value: unknown): unknown {
    let text = JSON.stringify(value, (key, field: unknown) => {
      const rule = this.rules[key];
      if (typeof field === 'string' && rule !== undefined && !(rule.keep?.(field) ?? false)) this.label(field, rule.prefix);
      return field;
    });
    for (const [id, label] of this.#byValue) text = text.replaceAll(id, label);
    return JSON.parse(text);
  }

  concrete(value: unknown): Message {
    let text = JSON.stringify(value);
    for (const [label, id] of this.#byLabel) text = text.replaceAll(label, id);
    return JSON.parse(text) as Message;
  }
}
