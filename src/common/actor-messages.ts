// Every message that crosses between the main thread and a pool worker, in one place.
// Commands go main -> worker as comlink calls on the worker's `ActorHostApi`; events go
// worker -> main on a separate port as plain objects; a cold resume's state returns packed
// with msgpackr, in slices (see snapshot-codec.ts for the measurements behind that split, and
// packed-history.ts for the slices).
import type { SessionSource } from './rollout/session-source.js';
import type { MessagePort } from 'node:worker_threads';
import type { HistoryMode, TurnPosition } from './rollout/rollout-reader.js';
import type { PackedHistory } from './packed-history.js';
import type { ResolvedProvider } from './model-provider.js';
import type { TokenUsageSnapshot } from './token-usage.js';
import type { WriterLease } from './writer-lease.js';
import type { HistoryLocation } from './history-location.js';

export type { TokenUsageSnapshot };
import type { AgentMessageItem, CommandExecutionItem, ContextCompactionItem, ToolCallItem, Turn, TurnError, TurnStatus, UserInput, UserMessageItem } from './wire-types.js';

/** Settings a turn runs with: the thread's, with per-turn overrides applied. */
export interface ThreadSettings {
  model: string;
  modelProvider: string;
  cwd: string;
  approvalPolicy: unknown;
  approvalsReviewer: string;
  sandboxMode: string;
  baseInstructions: string | null;
  developerInstructions: string | null;
  effort: string | null;
  /** The tools the model is offered, as the Responses API's `tools` array (the host builds it). */
  tools: unknown[];
  /** thread/start's `dynamicTools`, normalised, as session_meta keeps them; null when it brought none. */
  dynamicTools: unknown[] | null;
  /** The host offers tools of its own (the thread's MCP servers): a turn asks for them before it samples. */
  hostTools: boolean;
  /** thread/start's `permissions`: the built-in profile the sandbox was taken from, when one was named. */
  permissionProfile?: string;
}

/**
 * Where an actor reads and writes its thread's history: a rollout file in the home, or the
 * PostgreSQL thread store, where every append is fenced by the epoch this host acquired the
 * thread with and the next line it expects (src/common/postgres/fenced-append.ts).
 */
export type ActorHistory =
  | Extract<HistoryLocation, { store: 'files' }>
  | (Extract<HistoryLocation, { store: 'postgres' }> & { epoch: number; nextLine: number });

/** What a worker needs to host one thread's actor. */
export interface ActorInit {
  threadId: string;
  /** Where the thread's history lives and is written; null for an ephemeral thread (never written). */
  history: ActorHistory | null;
  /** True for a cold resume: replay the existing rollout before taking turns. */
  resume: boolean;
  /** A cold resume that answers with the turns: serialize them too (ActorResumeState.fullTurnsJson). */
  serializeHistory: boolean;
  /** The writer lock's lease (shared memory), checked before every write; null when it cannot expire (flock). */
  writerLease: WriterLease | null;
  /**
   * The history format of a new thread's rollout. A resumed thread keeps the format its file
   * already has, whatever this says.
   */
  historyMode: HistoryMode;
  session: { createdAtMs: number; originator: string; cliVersion: string; source: string };
  settings: ThreadSettings;
  provider: ResolvedProvider;
  userAgent: string;
  /** The actor's write fence (write-fence.ts), shared with the host. */
  fence: SharedArrayBuffer;
  /** A `thread/fork`: the new rollout is first written from this source (`resume` is true). */
  fork?: ForkRequest;
  /**
   * A `thread/revert`: the thread's new file (`history.path`) is first written as the prefix
   * of its previous one before `beforeTurnId` (`resume` is true).
   */
  revert?: RevertRequest;
}

/** What the host asks of a reverted thread's actor: the file the thread lived in, and the first turn it drops. */
export interface RevertRequest {
  /** The file the thread lived in; null on the PostgreSQL store, whose rows the actor reads and replaces. */
  previousPath: string | null;
  /** The new file's name, as the files store names it (the store records it as the thread's). */
  fileName: string;
  beforeTurnId: string;
  /** When the revert was asked: the new file's name and session_meta carry this one time. */
  atMs: number;
}

/** What the host asks of a fork's actor: the source, found by the host, and where to cut it. */
export interface ForkRequest {
  sourceThreadId: string;
  /**
   * Where the source's history is: its rollout file, or the PostgreSQL store's rows of it (the
   * store the fork is written to). Read only, never under the source's writer lock.
   */
  source: HistoryLocation;
  /** The last turn the fork keeps; null: every turn the source has written. */
  lastTurnId: string | null;
  /** The first turn the fork leaves out; null: as `lastTurnId` says. */
  beforeTurnId: string | null;
  /** The request named no cwd: the fork runs where its source last ran. */
  sourceCwd: boolean;
}

/** What a cold resume learned from the rollout, as the actor has it. */
export interface ActorResumeState {
  /** The format the file is written in, and will go on being written in. */
  historyMode: HistoryMode;
  turns: Turn[];
  /** Where each turn and its items sit in the file, one per turn. */
  positions: TurnPosition[];
  preview: string;
  updatedAtMs: number;
  createdAtMs: number | null;
  cwd: string | null;
  /** Who created the thread (`session_meta.originator`, `cli_version`). */
  originator: string | null;
  cliVersion: string | null;
  /** `session_meta.source` as the wire shows it; null when absent from the file or unreadable. */
  source: SessionSource | null;
  modelProvider: string | null;
  model: string | null;
  lastTokenUsage: TokenUsageSnapshot | null;
  /** `session_meta.forked_from_id`: the thread this one was forked from; null for no fork. */
  forkedFromId: string | null;
  /** `session_meta.dynamic_tools`: the tools the thread was started with; null when none. */
  dynamicTools: unknown[] | null;
  /**
   * Every turn with all its items as a resume answers with them (fullTurns), as JSON in UTF-8:
   * serialized where the history was read, so the main thread sends the bytes rather than
   * stringifying a long thread's whole history in the resume's reply; null when the resume
   * excludes the turns.
   */
  fullTurnsJson: Uint8Array | null;
}

/**
 * ActorResumeState as it is posted to the main thread: the turns and their positions packed in
 * slices the main thread decodes after answering the resume (packed-history.ts); the rest, and
 * the serialized history, as they are (the byte arrays transferred, not copied).
 */
export type PostedResumeState = Omit<ActorResumeState, 'turns' | 'positions'> & { history: PackedHistory };

/** One `turn/start`, as the actor runs it. */
export interface TurnCommand {
  turnId: string;
  userItemId: string;
  clientId: string | null;
  input: UserInput[];
  settings: ThreadSettings;
  outputSchema: unknown;
}

/** Input joining a turn (turn/steer, or turn/start while the turn runs), as posted to the actor. */
export interface SteerCommand {
  turnId: string;
  userItemId: string;
  clientId: string | null;
  input: UserInput[];
}

/** One `thread/compact/start`, as the actor runs it: a turn whose one item is the compaction. */
export interface CompactCommand {
  turnId: string;
  itemId: string;
  settings: ThreadSettings;
}

/**
 * A text part as posted to the pool worker when its text arrived as UTF-8 bytes: the bytes
 * are transferred in place of the text, and the worker decodes them (encoded-content.ts).
 */
export interface PostedText {
  type: 'text';
  text: '';
  text_elements: Extract<UserInput, { type: 'text' }>['text_elements'];
  utf8: Uint8Array;
}

/** A TurnCommand as posted to the pool worker. */
export type PostedTurnCommand = Omit<TurnCommand, 'input'> & { input: Array<UserInput | PostedText> };

/** A tool call the model made, as the actor hands it to the host, which runs it (src/main/tools/). */
export interface ToolCall {
  callId: string;
  name: string;
  namespace: string | null;
  /** `function_call`: the arguments' JSON text; `custom_tool_call`: the freeform input. */
  kind: 'function' | 'custom';
  input: string;
}

/** The host's answer to a tool call: what the model is given, and the finished item the history keeps. */
export interface ToolAnswer {
  turnId: string;
  callId: string;
  /** `function_call_output.output`: a text, or content items in the Responses API's spelling. */
  output: string | unknown[];
  /** What the model is given instead, where it differs from what the history keeps (audio it cannot hear). */
  modelOutput?: string | unknown[];
  /** The output's id (`fco_<uuid>`), minted on the host. */
  outputId: string;
  /** The call's finished item, recorded with the output (paginated history); null for a call that is no item. */
  item: ToolCallItem | null;
  /** Why the call failed, as the history's item records it beside the item (a cancelled call). */
  itemError?: string;
  /** What a patch printed, as the history's `FileChange` item keeps it (not on the wire's item). */
  itemOutput?: { stdout: string; stderr: string };
  /** The output's type; set by the actor from the call (a custom call's is `custom_tool_call_output`). */
  outputType?: 'function_call_output' | 'custom_tool_call_output';
}

/**
 * A user's command (thread/shellCommand) that ended, for the history and the model's later
 * input: the host ran it; the actor records it as the reference does.
 */
export interface UserShellCommand {
  turnId: string;
  /** It ran as a turn of its own, which the actor records and ends; else it joined the running turn `turnId`. */
  ownTurn: boolean;
  /** The thread's settings (its history's session_meta, when this is its first turn). */
  settings: ThreadSettings;
  /** When its own turn started. */
  startedAtMs: number;
  /** The command as the user gave it. */
  command: string;
  /** The finished item. */
  item: CommandExecutionItem;
  /** Its turn was interrupted. */
  interrupted: boolean;
}

/** Events an actor reports; each names its thread. */
export type ActorEvent =
  /** `ordinal`: where the turn's record sits in a paginated rollout (null: legacy, ephemeral). */
  | { type: 'turnStarted'; threadId: string; turnId: string; startedAtMs: number; ordinal: number | null }
  /** The history's first record landed; `path` is the rollout file's (null in the PostgreSQL store). */
  | { type: 'materialized'; threadId: string; path: string | null }
  /** The store refused an append because another host took the thread over (PostgreSQL store): the writer is revoked. */
  | { type: 'writerFenced'; threadId: string; message: string }
  | {
      type: 'userItem';
      threadId: string;
      turnId: string;
      item: UserMessageItem;
      ordinal: number | null;
      /**
       * `JSON.stringify(item.content)` as UTF-8, when the input is large (encoded-content.ts);
       * `item.content` is then empty, and the main thread restores it from the turn's input.
       */
      contentJson?: Uint8Array;
    }
  | { type: 'agentItemStarted'; threadId: string; turnId: string; item: AgentMessageItem }
  | { type: 'agentDelta'; threadId: string; turnId: string; itemId: string; delta: string }
  | { type: 'agentItemCompleted'; threadId: string; turnId: string; item: AgentMessageItem; ordinal: number | null }
  | { type: 'compactionStarted'; threadId: string; turnId: string; item: ContextCompactionItem }
  | { type: 'compactionCompleted'; threadId: string; turnId: string; item: ContextCompactionItem; ordinal: number | null }
  | { type: 'tokenUsage'; threadId: string; turnId: string; usage: TokenUsageSnapshot }
  /** The model called a tool: the host runs it and answers with `answerTool`. */
  | { type: 'toolCall'; threadId: string; turnId: string; call: ToolCall; startedAtMs: number }
  /** The turn asks for the host's tools (its MCP servers' listings); the host answers with `answerHostTools`. */
  | { type: 'hostToolsAsked'; threadId: string; turnId: string }
  /** A turn the host announced itself (a user's own command) is in the history: where its record sits. */
  | { type: 'turnRecorded'; threadId: string; turnId: string; ordinal: number | null }
  /** A tool's answer is in the history: where its item sits (paginated history). */
  | { type: 'toolItemRecorded'; threadId: string; turnId: string; itemId: string; ordinal: number | null }
  | { type: 'retrying'; threadId: string; turnId: string; message: string }
  /** Something the client should know that did not fail a turn (e.g. a rollout recreated). */
  | { type: 'warning'; threadId: string; message: string }
  | {
      type: 'turnEnded';
      threadId: string;
      turnId: string;
      status: Exclude<TurnStatus, 'inProgress'>;
      error: TurnError | null;
      completedAtMs: number;
      durationMs: number;
      /** False when history could not be written: the client is told, nothing is hidden. */
      persisted: boolean;
    };

/** The API a worker exposes over comlink, one per worker, multiplexing its actors. */
export interface ActorHostApi {
  /** Creates the actor; for a cold resume, returns what it read (its history packed, packed-history.ts). */
  spawn(init: ActorInit): Promise<PostedResumeState | null>;
  startTurn(threadId: string, command: PostedTurnCommand): Promise<void>;
  /** Adds input to a running or queued turn, at once (outside the actor's mailbox). */
  steerTurn(threadId: string, command: SteerCommand): Promise<void>;
  /** Queues a compaction of the thread's conversation, run like a turn after the ones ahead of it. */
  startCompaction(threadId: string, command: CompactCommand): Promise<void>;
  interrupt(threadId: string, turnId: string): Promise<'interrupting' | 'notRunning'>;
  /** A tool call's answer, for the running turn that waits for it (outside the mailbox); 'late' when none waits. */
  answerTool(threadId: string, answer: ToolAnswer): Promise<'answered' | 'late'>;
  /** A call's item that finished after its call was answered, recorded under the turn that made it. */
  recordItem(threadId: string, turnId: string, item: ToolCallItem): Promise<'recorded' | 'notFound'>;
  /** The host's tools for a turn that asked for them (outside the mailbox); 'late' when none waits. */
  answerHostTools(threadId: string, turnId: string, tools: unknown[]): Promise<'answered' | 'late'>;
  /**
   * A user's command ended: its own turn is recorded after the commands ahead of it (and ends
   * with `turnEnded`); one that joined a running turn is recorded in it at once.
   */
  recordUserShell(threadId: string, command: UserShellCommand): Promise<void>;
  /** The writer lock is lost: stop writing the rollout at once, before anything queued. */
  revokeWriter(threadId: string, reason: string): Promise<'revoked' | 'notFound'>;
  close(threadId: string): Promise<'closed' | 'notFound'>;
  /**
   * close() for several threads in one message, answered in the same order, each on its own
   * ('failed' where that actor's close threw): the fenced closes of one event-loop iteration
   * (32 unsubscribes at once, a connection with many subscriptions closing) cost one message,
   * not one each.
   */
  closeMany(threadIds: string[]): Promise<Array<'closed' | 'notFound' | 'failed'>>;
  ping(): Promise<number>;
  /**
   * The host no longer places actors here: with none left, the worker answers 'retiring' and
   * exits right after (the pool starts a fresh one), giving its whole heap back; 'busy' while
   * an actor is still here (a fenced one may still be closing its file).
   */
  retire(): Promise<'retiring' | 'busy'>;
}

/**
 * The one Piscina task a worker ever runs: it attaches the worker's actor host to these two
 * ports (comlink commands in, actor events out) and returns the worker's id.
 */
export interface AttachTask {
  kind: 'attach';
  hostPort: MessagePort;
  eventPort: MessagePort;
}
