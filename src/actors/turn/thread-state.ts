// What a thread's turns share and carry from one to the next: the conversation the model sees,
// the usage so far, where the history is written and in which format, and the lines an earlier
// turn still owes it. The actor owns it; a running turn reads and updates it.
import type { ActorEvent, ActorInit, ThreadSettings } from '../../common/actor-messages.js';
import type { Clock } from '../../common/clock.js';
import { ZERO_USAGE } from '../../common/token-usage.js';
import type { ConversationMessage, ModelUsage } from '../../common/wire-types.js';
import type { HistoryAppender } from '../history/history-appender.js';
import type { HistoryBackend } from '../history/history-backend.js';
import type { ModelClient } from '../model/model-client.js';
import type { FormattedLines, RolloutFormat, SessionMetaInput } from '../rollout-writer/rollout-format.js';
import type { TurnWrites } from './turn-writes.js';

export interface ThreadStateOptions {
  threadId: string;
  session: ActorInit['session'];
  emit: (event: ActorEvent) => void;
  clock: Pick<Clock, 'now'>;
  model: ModelClient;
  backend: HistoryBackend;
  format: RolloutFormat;
  /** The history already holds the thread's session_meta (a resume). */
  materialized: boolean;
  /**
   * Every line of a turn reached the store: called before its end is reported, so the actor
   * can go quiet first and an unload that follows at once can be fenced.
   */
  turnWritten: () => void;
}

export class ThreadState {
  readonly threadId: string;
  readonly session: ActorInit['session'];
  readonly emit: (event: ActorEvent) => void;
  readonly clock: Pick<Clock, 'now'>;
  readonly model: ModelClient;
  readonly backend: HistoryBackend;
  readonly turnWritten: () => void;
  /** How the history is written: a new thread's as configured, a resumed one's as it already is. */
  format: RolloutFormat;
  /** Null until a resumed thread is loaded, and for good for an ephemeral one. */
  appender: HistoryAppender | null = null;
  /** What the model sees as history: every completed exchange so far. */
  conversation: ConversationMessage[] = [];
  totalUsage: ModelUsage = ZERO_USAGE;
  materialized: boolean;
  /**
   * The terminal line of a turn whose start reached the history but whose end did not (the
   * disk failed): written ahead of the next turn's lines, so the history tells what the client
   * was told instead of leaving the turn open.
   */
  owed: string[] = [];

  constructor(options: ThreadStateOptions) {
    this.threadId = options.threadId;
    this.session = options.session;
    this.emit = options.emit;
    this.clock = options.clock;
    this.model = options.model;
    this.backend = options.backend;
    this.turnWritten = options.turnWritten;
    this.format = options.format;
    this.materialized = options.materialized;
  }

  /** Opens the history's appender, its ordinals (a paginated format's) going on at `nextOrdinal`. */
  openAppender(nextOrdinal: number): void {
    const stamp = this.format.stampOrdinal;
    this.appender = this.backend.openAppender(stamp === null ? null : { next: nextOrdinal, stamp });
  }

  /**
   * Queues `formatted` and returns the ordinals its anchor lines will get if the writes land
   * (paged-history cursors of a paginated thread point at them).
   */
  queueAnchored(writes: TurnWrites, label: 'start' | 'item', formatted: FormattedLines): { turn: number | null; item: number | null } {
    const base = this.appender?.peekOrdinal() ?? null;
    writes.add(label, formatted.lines);
    const at = (line: number | undefined) => (base === null || line === undefined ? null : base + line);
    return { turn: at(formatted.turnLine), item: at(formatted.itemLine) };
  }

  sessionMeta(settings: ThreadSettings): SessionMetaInput {
    const { session, threadId } = this;
    return {
      threadId,
      createdAtMs: session.createdAtMs,
      cwd: settings.cwd,
      originator: session.originator,
      cliVersion: session.cliVersion,
      source: 'vscode',
      modelProvider: settings.modelProvider,
      model: settings.model,
      baseInstructions: settings.baseInstructions,
      dynamicTools: settings.dynamicTools,
    };
  }
}
