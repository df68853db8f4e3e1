// Wire-shaped values that both the main thread and the actors build: turns, items, user
// input and token usage, spelled exactly as the app-server protocol sends them (camelCase,
// nullable fields present as null). Kept free of behaviour so either side can import it.

/** A turn id (UUIDv7). */
export type TurnId = string & { readonly __brand: 'TurnId' };

/** `TextElement` inside text user input (snake_case parent key, camelCase inside). */
export interface TextElement {
  byteRange: { start: number; end: number };
  placeholder: string | null;
}

/** One piece of user input as echoed back on the wire. Only `text` is interpreted. */
export type UserInput =
  | { type: 'text'; text: string; text_elements: TextElement[] }
  | { type: 'image'; url: string; detail?: string | null }
  | { type: 'localImage'; detail?: string | null; path: string }
  | { type: 'skill'; name: string; path: string }
  | { type: 'mention'; name: string; path: string };

export interface UserMessageItem {
  type: 'userMessage';
  id: string;
  clientId: string | null;
  content: UserInput[];
  startedAtMs: number | null;
  completedAtMs: number | null;
}

export interface AgentMessageItem {
  type: 'agentMessage';
  moderation: null;
  id: string;
  text: string;
  phase: null;
  memoryCitation: null;
  delivery: null;
  questions: null;
  startedAtMs: number | null;
  completedAtMs: number | null;
}

/** The record of a compaction (thread/compact/start): the only item of its turn. */
export interface ContextCompactionItem {
  type: 'contextCompaction';
  id: string;
  startedAtMs: number | null;
  completedAtMs: number | null;
}

/** `DynamicToolCallOutputContentItem`: what a client's tool answers with. */
export type DynamicToolContentItem =
  | { type: 'inputText'; text: string }
  | { type: 'inputImage'; imageUrl: string }
  | { type: 'inputAudio'; audioUrl: string };

/** A call of a tool the client brought (thread/start's `dynamicTools`), answered by `item/tool/call`. */
export interface DynamicToolCallItem {
  type: 'dynamicToolCall';
  id: string;
  namespace: string | null;
  tool: string;
  arguments: unknown;
  status: 'inProgress' | 'completed' | 'failed';
  contentItems: DynamicToolContentItem[] | null;
  success: boolean | null;
  durationMs: number | null;
  startedAtMs: number | null;
  completedAtMs: number | null;
}

/** A call of a tool of an MCP server the thread is configured with. */
export interface McpToolCallItem {
  type: 'mcpToolCall';
  id: string;
  server: string;
  environmentId: null;
  tool: string;
  status: 'inProgress' | 'completed' | 'failed';
  arguments: unknown;
  appContext: null;
  mcpAppUi: null;
  pluginId: null;
  readOnlyHint: boolean | null;
  result: { content: unknown[]; structuredContent: unknown; _meta: unknown } | null;
  error: { message: string } | null;
  durationMs: number | null;
  startedAtMs: number | null;
  completedAtMs: number | null;
}

/** What a command does, as the reference parses it (`CommandAction`). */
export type CommandAction =
  | { type: 'read'; command: string; name: string; path: string }
  | { type: 'listFiles'; command: string; path: string | null }
  | { type: 'search'; command: string; query: string | null; path: string | null }
  | { type: 'unknown'; command: string };

/** A command run in a thread (the model's `exec_command`, the user's `thread/shellCommand`), in the reference's key order. */
export interface CommandExecutionItem {
  type: 'commandExecution';
  id: string;
  pluginId: null;
  scriptPath: null;
  command: string;
  cwd: string;
  processId: string | null;
  source: 'unifiedExecStartup' | 'agent' | 'userShell';
  status: 'inProgress' | 'completed' | 'failed' | 'declined';
  commandActions: CommandAction[];
  aggregatedOutput: string | null;
  exitCode: number | null;
  durationMs: number | null;
  startedAtMs: number | null;
  completedAtMs: number | null;
}

/** One file a patch changes (`FileUpdateChange`), with an absolute path. */
export interface FileUpdateChange {
  path: string;
  kind: { type: 'add' } | { type: 'delete' } | { type: 'update'; move_path: string | null };
  diff: string;
}

/** A patch the model applied (`apply_patch`), in the reference's key order. */
export interface FileChangeItem {
  type: 'fileChange';
  id: string;
  changes: FileUpdateChange[];
  status: 'inProgress' | 'completed' | 'failed' | 'declined';
  startedAtMs: number | null;
  completedAtMs: number | null;
}

/** The items a tool call becomes (more join as the host's tools grow). */
export type ToolCallItem = DynamicToolCallItem | McpToolCallItem | CommandExecutionItem | FileChangeItem;

/** The item variants this host produces. */
export type ThreadItem = UserMessageItem | AgentMessageItem | ContextCompactionItem | ToolCallItem;

export type TurnStatus = 'inProgress' | 'completed' | 'interrupted' | 'failed';
export type ItemsView = 'notLoaded' | 'summary' | 'full';

/** `TurnError` as sent in `error` notifications and failed turns. */
export interface TurnError {
  message: string;
  codexErrorInfo: string | null;
  additionalDetails: string | null;
  misalignment: null;
}

export interface Turn {
  id: TurnId;
  rootTurnId: TurnId;
  items: ThreadItem[];
  itemsView: ItemsView;
  status: TurnStatus;
  error: TurnError | null;
  /** Unix seconds. */
  startedAt: number | null;
  /** Unix seconds. */
  completedAt: number | null;
  durationMs: number | null;
}

/** Token counts in the wire's `TokenUsageBreakdown` spelling. */
export interface TokenUsageBreakdown {
  totalTokens: number;
  inputTokens: number;
  cachedInputTokens: number;
  cacheWriteInputTokens: number;
  outputTokens: number;
  reasoningOutputTokens: number;
}

/** What the model client reports for one sampling (Responses API `usage`). */
export interface ModelUsage {
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
  reasoningOutputTokens: number;
  totalTokens: number;
}

/** The context window the reference reports for models it has no metadata for. */
export const DEFAULT_MODEL_CONTEXT_WINDOW = 258400;

/**
 * An entry of the conversation as the model sees it (history replay): a message, or a response
 * item kept as the Responses API spells it (a tool call, its output), sent back as it is.
 * `parts` replaces a user message's text in the request when it carries images.
 */
export type ConversationMessage =
  | { role: 'user' | 'assistant' | 'developer'; text: string; parts?: unknown[] }
  | { role: 'item'; text: ''; item: Record<string, unknown> };
