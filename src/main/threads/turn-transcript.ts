// The host's copy of a loaded thread's turns and their items, with where each sits in the
// rollout: what thread/read, thread/turns/list and a resume's answer are made from without
// asking the worker. It changes only through methods named for the actor's events; the
// turn-level ones that also move the thread's status (accepted, started, ended) are
// LoadedThread's, which extends this.
import type { TurnPosition } from '../../common/rollout/rollout-reader.js';
import type { ContextCompactionItem, ThreadItem, Turn, UserInput } from '../../common/wire-types.js';

export class TurnTranscript {
  readonly #turns: Turn[] = [];
  /**
   * Where each turn and its items sit in a paginated rollout, by index, aligned with `turns`
   * (the paged reads' cursors); created with the first position known, and shorter than
   * `turns` where the last turns have none (legacy and ephemeral threads have none at all).
   */
  #positions: Array<TurnPosition | undefined> | null = null;
  /**
   * Large turn inputs sent to the actor and not yet echoed back (encoded-content.ts), by turn
   * id; created on first use.
   */
  #largeInputs: Map<string, readonly UserInput[]> | null = null;

  /** The transcript of the thread's turns, oldest first. */
  get turns(): readonly Turn[] {
    return this.#turns;
  }

  /** Where turn `i`'s record sits in the rollout; null where not known. Allocates nothing. */
  turnOrdinal(i: number): number | null {
    return this.#positions?.[i]?.ordinal ?? null;
  }

  /** Where item `j` of turn `i` sits in the rollout; null where not known. */
  itemOrdinal(i: number, j: number): number | null {
    return this.#positions?.[i]?.items[j] ?? null;
  }

  findTurn(turnId: string): Turn | undefined {
    return this.#turns[this.#indexOf(turnId)];
  }

  /** Turns read from the rollout were decoded: appended, with where each sits (one position per turn). */
  resumedTurnsDecoded(turns: readonly Turn[], positions: readonly TurnPosition[]): void {
    const at = this.#turns.length;
    for (const turn of turns) this.#turns.push(turn);
    const known = (this.#positions ??= []);
    positions.forEach((position, i) => (known[at + i] = position));
  }

  /** The user's input was recorded as `item`. */
  userItemRecorded(turnId: string, item: ThreadItem, ordinal: number | null): void {
    this.findTurn(turnId)?.items.push(item);
    this.notePosition(turnId, ordinal, item.id);
  }

  agentItemStarted(turnId: string, item: ThreadItem): void {
    this.findTurn(turnId)?.items.push(item);
  }

  /** A delta of the message being streamed: a turn's samplings stream one message at a time. */
  agentDeltaAppended(turnId: string, delta: string): void {
    const items = this.findTurn(turnId)?.items;
    const item = items?.[lastIndexOf(items, (candidate) => candidate.type === 'agentMessage' && candidate.completedAtMs === null)];
    if (item?.type === 'agentMessage') item.text += delta;
  }

  /** The agent's message is whole: it replaces the streamed one (a turn with tool calls has one per sampling). */
  agentItemCompleted(turnId: string, item: ThreadItem, ordinal: number | null): void {
    const turn = this.findTurn(turnId);
    if (turn) {
      const index = lastIndexOf(turn.items, (candidate) => candidate.type === 'agentMessage' && candidate.completedAtMs === null);
      if (index >= 0) turn.items[index] = item;
      else turn.items.push(item);
    }
    this.notePosition(turnId, ordinal, item.id);
  }

  /** A tool call began: its item joins its turn. */
  toolItemStarted(turnId: string, item: ThreadItem): void {
    this.findTurn(turnId)?.items.push(item);
  }

  /** A tool call finished: its item replaces the started one. */
  toolItemCompleted(turnId: string, item: ThreadItem): void {
    const items = this.findTurn(turnId)?.items;
    if (items === undefined) return;
    const index = lastIndexOf(items, (candidate) => candidate.id === item.id && candidate.type === item.type);
    if (index >= 0) items[index] = item;
    else items.push(item);
  }

  /** A turn the host announced itself is in the history, its record at `ordinal`. */
  turnRecorded(turnId: string, ordinal: number | null): void {
    this.notePosition(turnId, ordinal);
  }

  /** A tool call's item is in the history, at `ordinal`. */
  toolItemRecorded(turnId: string, itemId: string, ordinal: number | null): void {
    this.notePosition(turnId, ordinal, itemId);
  }

  /** A compaction began: its item joins its turn. */
  compactionItemStarted(turnId: string, item: ContextCompactionItem): void {
    this.findTurn(turnId)?.items.push(item);
  }

  /** The compaction is recorded: its finished item replaces the started one. */
  compactionItemCompleted(turnId: string, item: ContextCompactionItem, ordinal: number | null): void {
    const items = this.findTurn(turnId)?.items;
    const index = items?.findIndex((candidate) => candidate.id === item.id) ?? -1;
    if (index >= 0) items![index] = item;
    else items?.push(item);
    this.notePosition(turnId, ordinal, item.id);
  }

  /** The large input kept for `turnId`, forgotten here (also when the turn ended without it). */
  takeLargeInput(turnId: string): readonly UserInput[] | undefined {
    const input = this.#largeInputs?.get(turnId);
    this.#largeInputs?.delete(turnId);
    return input;
  }

  /** A turn accepted by turn/start joins the transcript; a large input is kept until its echo. */
  protected appendAccepted(turn: Turn, largeInput: readonly UserInput[] | null): void {
    this.#turns.push(turn);
    if (largeInput !== null) (this.#largeInputs ??= new Map()).set(turn.id, largeInput);
  }

  /** Records the ordinal of a live turn's record (turn) or of one of its items, once it is in the transcript. */
  protected notePosition(turnId: string, ordinal: number | null, itemId?: string): void {
    if (ordinal === null) return;
    const i = this.#indexOf(turnId);
    if (i < 0) return;
    const known = (this.#positions ??= []);
    const position = (known[i] ??= { ordinal: null, items: [] });
    if (itemId === undefined) {
      position.ordinal = ordinal;
      return;
    }
    const j = this.#turns[i]!.items.findIndex((item) => item.id === itemId);
    if (j >= 0) position.items[j] = ordinal;
  }

  /** Where `turnId` is in the transcript, searched from the newest (the turn a live event is about); -1 if absent. */
  #indexOf(turnId: string): number {
    let i = this.#turns.length - 1;
    while (i >= 0 && this.#turns[i]!.id !== turnId) i -= 1;
    return i;
  }
}

function lastIndexOf(items: readonly ThreadItem[], matches: (item: ThreadItem) => boolean): number {
  for (let i = items.length - 1; i >= 0; i -= 1) if (matches(items[i]!)) return i;
  return -1;
}
