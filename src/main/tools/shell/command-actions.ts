// What a command does, as the reference tells it for the item (`commandActions`): reading a
// file (cat, sed -n, head, tail), listing files (ls) or searching (rg, grep, find), or
// unknown. A script of several commands is told command by command once every one of them is
// understood; `cd` only moves where later reads are resolved, and formatting helpers at the
// end of a pipe (`| wc -l`) are left out. Anything else is one unknown action for the whole
// script, as the reference gives it.
import { basename, isAbsolute, join, resolve } from 'node:path';
import type { CommandAction } from '../../../common/wire-types.js';
import { joinWords, scriptTokens } from '../../../common/shell-words.js';

// Helpers that only reshape what a pipe gives them.
const FORMATTERS = new Set(['wc', 'tr', 'cut', 'sort', 'uniq', 'column', 'nl', 'xargs', 'head', 'tail', 'awk', 'sed']);
// Options of rg and grep that take the next word as their value.
const SEARCH_VALUE_FLAGS = new Set(['-g', '--glob', '-t', '--type', '-T', '--type-not', '-m', '--max-count', '-A', '-B', '-C', '-e', '-f']);

/** The actions of `script`, run in `cwd`. */
export function commandActionsOf(script: string, cwd: string): CommandAction[] {
  const unknown: CommandAction[] = [{ type: 'unknown', command: script }];
  const tokens = scriptTokens(script);
  if (tokens === null) return unknown;
  const actions: CommandAction[] = [];
  let dir = cwd;
  let words: string[] = [];
  let piped = false;
  const segments: Array<{ words: string[]; piped: boolean }> = [];
  for (const token of tokens) {
    if (token.kind === 'word') words.push(token.text);
    else {
      segments.push({ words, piped });
      words = [];
      piped = token.text === '|';
    }
  }
  segments.push({ words, piped });
  for (const segment of segments) {
    const [program, ...args] = segment.words;
    if (program === undefined) continue;
    if (program === 'cd') {
      if (args.length === 1) dir = resolve(dir, args[0]!);
      continue;
    }
    if (segment.piped && FORMATTERS.has(program)) continue;
    const action = actionOf(program, args, segment.words, dir);
    if (action === null) return unknown;
    actions.push(action);
  }
  return actions.length === 0 ? unknown : actions;
}

function actionOf(program: string, args: string[], words: string[], dir: string): CommandAction | null {
  const command = joinWords(words);
  switch (program) {
    case 'cat':
      return args.length === 1 && !args[0]!.startsWith('-') ? read(command, args[0]!, dir) : null;
    case 'sed':
      return args.length === 3 && args[0] === '-n' && /^\d+(,\d+)?p$/.test(args[1]!) ? read(command, args[2]!, dir) : null;
    case 'head':
    case 'tail': {
      const file = headTailFile(args);
      return file === null ? null : read(command, file, dir);
    }
    case 'ls': {
      const operands = args.filter((arg) => !arg.startsWith('-'));
      return operands.length <= 1 ? { type: 'listFiles', command, path: operands[0] ?? null } : null;
    }
    case 'rg':
    case 'grep': {
      const operands = searchOperands(args);
      if (operands === null || operands.length === 0 || operands.length > 2) return null;
      return { type: 'search', command, query: operands[0]!, path: operands[1] ?? null };
    }
    case 'find': {
      const name = args.indexOf('-name');
      const path = args[0] !== undefined && !args[0].startsWith('-') ? args[0] : null;
      if (name === -1 || args[name + 1] === undefined) return args.length <= 1 ? { type: 'listFiles', command, path } : null;
      return { type: 'search', command, query: args[name + 1]!, path };
    }
    default:
      return null;
  }
}

function read(command: string, file: string, dir: string): CommandAction {
  return { type: 'read', command, name: basename(file), path: isAbsolute(file) ? file : join(dir, file) };
}

// `head -n 3 FILE`, `tail -5 FILE`, `head FILE`: the one file operand.
function headTailFile(args: string[]): string | null {
  const operands: string[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i]!;
    if (arg === '-n' || arg === '-c') i += 1;
    else if (!arg.startsWith('-')) operands.push(arg);
  }
  return operands.length === 1 ? operands[0]! : null;
}

function searchOperands(args: string[]): string[] | null {
  const operands: string[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i]!;
    if (SEARCH_VALUE_FLAGS.has(arg)) i += 1;
    else if (!arg.startsWith('-')) operands.push(arg);
  }
  return operands;
}
