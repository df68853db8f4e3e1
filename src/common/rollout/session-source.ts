// A rollout's `session_meta.source` as the reference reads it, checked against codex-cli
// 0.171.0's `thread/list`. The file holds the core protocol's spelling (`"exec"`, `"mcp"`,
// `{"subagent":"review"}`); the wire shows the app-server's (`"exec"`, `"appServer"`,
// `{"subAgent":"review"}`), and `sourceKinds` filters by a flat kind of it:
//
//   in the file                               on the wire                         kind
//   absent                                    "vscode" (the reference's default)  vscode
//   "cli" | "vscode" | "exec"                 the same                            the same
//   "mcp"                                     "appServer"                         appServer
//   any other string                          "unknown"                           unknown
//   {"subagent":"review" | "compact"}         {"subAgent":<the same>}             subAgentReview | subAgentCompact
//   {"subagent":"memory_consolidation"}       {"subAgent":<the same>}             (only `subAgent`)
//   {"subagent":{"thread_spawn":{…}}}         its fields, absent ones as null     subAgentThreadSpawn
//   {"subagent":{"other":<string>}}           {"subAgent":<the same>}             subAgentOther
//   anything else (null, a number, {"custom":…}, an unknown sub-agent)  unreadable: the reference
//   cannot parse that session_meta, so the rollout is left out of listings.
//
// The kind `subAgent` in a filter stands for every sub-agent kind.
/** A session source as the wire shows it. */
export type SessionSource = string | { subAgent: unknown };

/** A readable source and the kind `sourceKinds` filters it by. */
export interface ReadSource {
  value: SessionSource;
  kind: string;
}

/** What `thread/list` shows when the client names no `sourceKinds`: the interactive sources. */
export const INTERACTIVE_SOURCE_KINDS: readonly string[] = ['cli', 'vscode'];

const SUB_AGENT = 'subAgent';
const NAMED: Readonly<Record<string, string>> = { cli: 'cli', vscode: 'vscode', exec: 'exec', mcp: 'appServer' };
const NAMED_SUB_AGENTS: Readonly<Record<string, string>> = { review: 'subAgentReview', compact: 'subAgentCompact', memory_consolidation: SUB_AGENT };

/** The source recorded in a session_meta payload, or null when the reference could not read it. */
export function readSessionSource(raw: unknown): ReadSource | null {
  if (raw === undefined) return { value: 'vscode', kind: 'vscode' };
  if (typeof raw === 'string') {
    const named = NAMED[raw] ?? 'unknown';
    return { value: named, kind: named };
  }
  const sub = singleKey(raw, 'subagent');
  if (sub === undefined) return null;
  if (typeof sub === 'string') {
    const kind = NAMED_SUB_AGENTS[sub];
    return kind === undefined ? null : { value: { subAgent: sub }, kind };
  }
  const spawn = singleKey(sub, 'thread_spawn');
  if (spawn !== undefined) return threadSpawn(spawn);
  const other = singleKey(sub, 'other');
  return typeof other === 'string' ? { value: { subAgent: { other } }, kind: 'subAgentOther' } : null;
}

/** The nickname and role a spawned sub-agent's source names, which its Thread shows; nulls for any other source. */
export function spawnedAgent(source: SessionSource): { agentNickname: string | null; agentRole: string | null } {
  const spawn = typeof source === 'object' ? singleKey(source.subAgent, 'thread_spawn') : undefined;
  if (!isObject(spawn)) return { agentNickname: null, agentRole: null };
  const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
  return { agentNickname: text(spawn.agent_nickname), agentRole: text(spawn.agent_role) };
}

/** Whether a source of `kind` passes a `sourceKinds` filter. */
export function sourceKindWanted(kind: string, wanted: ReadonlySet<string>): boolean {
  return wanted.has(kind) || (wanted.has(SUB_AGENT) && kind.startsWith(SUB_AGENT));
}

function threadSpawn(spawn: unknown): ReadSource | null {
  if (!isObject(spawn)) return null;
  const { parent_thread_id: parent, depth } = spawn;
  if (typeof parent !== 'string' || typeof depth !== 'number' || !Number.isInteger(depth)) return null;
  const optional = (value: unknown): string | null | undefined => (value === undefined || value === null ? null : typeof value === 'string' ? value : undefined);
  const agentPath = optional(spawn.agent_path);
  const nickname = optional(spawn.agent_nickname);
  // `agent_type` is the field's older name.
  const role = optional(spawn.agent_role ?? spawn.agent_type);
  if (agentPath === undefined || nickname === undefined || role === undefined) return null;
  const value = { thread_spawn: { parent_thread_id: parent, depth, agent_path: agentPath, agent_nickname: nickname, agent_role: role } };
  return { value: { subAgent: value }, kind: 'subAgentThreadSpawn' };
}

/** The value of `value`'s only key when that key is `key` (a serde enum variant), else undefined. */
function singleKey(value: unknown, key: string): unknown {
  if (!isObject(value)) return undefined;
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === key ? value[key] : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
