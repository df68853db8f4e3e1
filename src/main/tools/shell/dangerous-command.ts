// The one kind of command codex 0.171.0 deems dangerous (probed): `rm` with a force flag (`-f`,
// `-rf`, `-fr`, `-r -f`, `--force`; `/bin/rm` too), run directly, after `sudo`, anywhere in a
// chain, inside `$(…)` or backquotes, or in a nested `bash -c "…"`. `rm -r`, `xargs rm -rf`,
// `git reset --hard` and `find -delete` are not. The reference asks for such a command under
// every policy that may ask, even inside the sandbox and under danger-full-access, and refuses
// it under never, danger-full-access included.
import { basename } from 'node:path';

const SHELLS = new Set(['bash', 'sh', 'zsh']);

/** The refusal's reason under approval policy never, with the item's command line. */
export function dangerRefusal(commandLine: string): string {
  return `\`${commandLine}\` rejected: rm -f style commands are not permitted. Use a safer approach`;
}

/** Whether one command's words are dangerous. */
export function dangerousWords(words: readonly string[]): boolean {
  const [first, ...rest] = words;
  if (first === undefined) return false;
  if (first === 'sudo') return dangerousWords(rest);
  const name = basename(first);
  if (name === 'rm') return rest.some((word) => word === '--force' || /^-[A-Za-z]*f[A-Za-z]*$/.test(word));
  if (SHELLS.has(name)) {
    const flag = rest.findIndex((word) => /^-[A-Za-z]*c$/.test(word));
    return flag !== -1 && rest[flag + 1] !== undefined && scriptMightBeDangerous(rest[flag + 1]!);
  }
  return false;
}

/** Whether any command of the script, substitutions included, is dangerous. */
export function scriptMightBeDangerous(script: string): boolean {
  return looseCommands(script).some(dangerousWords);
}

// The script's commands read loosely: quotes and escapes as the shell reads them, and a
// substitution, a subshell or a redirection's target ending one command and starting another.
function looseCommands(script: string): string[][] {
  const commands: string[][] = [[]];
  let word: string | null = null;
  const flush = (): void => {
    if (word !== null) commands.at(-1)!.push(word);
    word = null;
  };
  const split = (): void => {
    flush();
    commands.push([]);
  };
  for (let i = 0; i < script.length; i += 1) {
    const c = script[i]!;
    if (c === "'") {
      const end = script.indexOf("'", i + 1);
      word = (word ?? '') + script.slice(i + 1, end === -1 ? undefined : end);
      i = end === -1 ? script.length : end;
    } else if (c === '"') {
      let text = '';
      let j = i + 1;
      for (; j < script.length && script[j] !== '"'; j += 1) {
        if (script[j] === '\\' && j + 1 < script.length) j += 1;
        text += script[j];
      }
      word = (word ?? '') + text;
      i = j;
    } else if (c === '\\') {
      word = (word ?? '') + (script[i + 1] ?? '');
      i += 1;
    } else if (c === ' ' || c === '\t') flush();
    else if (';&|\n()`<>'.includes(c) || (c === '$' && script[i + 1] === '(')) split();
    else word = (word ?? '') + c;
  }
  flush();
  return commands.filter((words) => words.length > 0);
}
