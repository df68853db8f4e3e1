// A command's item (`exec_command`) in the reference's core spelling, both ways: written into
// the rollout's `item_completed` (CommandExecution) and read back into the wire's item.
import type { CommandAction, CommandExecutionItem } from '../wire-types.js';
import { joinWords, unquoteWord } from '../shell-words.js';
import type { Json } from './rollout-json.js';
import { num, obj, str } from './rollout-json.js';

const SHELL = ['/bin/bash', '-lc'];
// Where a command came from, the wire's spelling and the core's.
const CORE_SOURCES: Record<string, string> = { agent: 'agent', unifiedExecStartup: 'unified_exec_startup', userShell: 'user_shell' };
const WIRE_SOURCES: Record<string, CommandExecutionItem['source']> = { agent: 'agent', unified_exec_startup: 'unifiedExecStartup', user_shell: 'userShell' };
const SHELL_PREFIX = '/bin/bash -lc ';

/** The core `CommandExecution` item, in the reference's key order. */
export function coreCommandItem(item: CommandExecutionItem): Record<string, unknown> {
  return {
    type: 'CommandExecution',
    id: item.id,
    // Absent, not null, when the command had no process of its own (a user's command).
    ...(item.processId === null ? {} : { process_id: item.processId }),
    command: [...SHELL, scriptOf(item.command)],
    cwd: `file://${item.cwd}`,
    parsed_cmd: item.commandActions.map(coreAction),
    source: CORE_SOURCES[item.source] ?? 'unified_exec_startup',
    status: item.status,
    aggregated_output: item.aggregatedOutput,
    exit_code: item.exitCode,
    duration: item.durationMs === null ? null : { secs: Math.floor(item.durationMs / 1000), nanos: (item.durationMs % 1000) * 1_000_000 },
  };
}

/** A core `CommandExecution` as the wire shows it; null for any other item. */
export function commandItemOf(core: Json, id: string, startedAtMs: number | null, completedAtMs: number | null): CommandExecutionItem | null {
  if (core.type !== 'CommandExecution') return null;
  const duration = obj(core.duration);
  const status = str(core.status);
  const argv = Array.isArray(core.command) ? core.command.filter((word): word is string => typeof word === 'string') : [];
  const cwd = str(core.cwd) ?? '';
  return {
    type: 'commandExecution',
    id,
    pluginId: null,
    scriptPath: null,
    command: joinWords(argv),
    cwd: cwd.startsWith('file://') ? cwd.slice('file://'.length) : cwd,
    processId: str(core.process_id),
    source: WIRE_SOURCES[String(core.source)] ?? 'unifiedExecStartup',
    status: status === 'completed' || status === 'failed' || status === 'declined' ? status : 'inProgress',
    commandActions: Array.isArray(core.parsed_cmd) ? core.parsed_cmd.map((action) => wireAction(action as Json)) : [],
    // The reference reads an empty output back as none.
    aggregatedOutput: str(core.aggregated_output) || null,
    exitCode: num(core.exit_code),
    durationMs: duration === null ? null : Math.round((num(duration.secs) ?? 0) * 1000 + (num(duration.nanos) ?? 0) / 1_000_000),
    startedAtMs,
    completedAtMs,
  };
}

// The item's command is `/bin/bash -lc <script>` as one line; the core item keeps the argv.
function scriptOf(command: string): string {
  return command.startsWith(SHELL_PREFIX) ? unquoteWord(command.slice(SHELL_PREFIX.length)) : command;
}

function coreAction(action: CommandAction): Record<string, unknown> {
  switch (action.type) {
    case 'read':
      return { type: 'read', cmd: action.command, name: action.name, path: action.path };
    case 'listFiles':
      return { type: 'list_files', cmd: action.command, path: action.path };
    case 'search':
      return { type: 'search', cmd: action.command, query: action.query, path: action.path };
    case 'unknown':
      return { type: 'unknown', cmd: action.command };
  }
}

function wireAction(core: Json): CommandAction {
  const command = str(core.cmd) ?? '';
  switch (core.type) {
    case 'read':
      return { type: 'read', command, name: str(core.name) ?? '', path: str(core.path) ?? '' };
    case 'list_files':
      return { type: 'listFiles', command, path: str(core.path) };
    case 'search':
      return { type: 'search', command, query: str(core.query), path: str(core.path) };
    default:
      return { type: 'unknown', command };
  }
}
