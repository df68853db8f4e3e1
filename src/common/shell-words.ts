// Words of a shell command line, split and joined as the reference's `shlex` does: a command's
// argv is shown as one line (`/bin/bash -lc 'echo hi'`), and a script is cut into words to
// tell what it does. Shared by the host (items on the wire) and the workers (the rollout).

// Characters written bare; a word with any other is quoted (a comma included, as the
// reference writes `sed -n '1,5p'`).
const BARE = /^[A-Za-z0-9_\-./=+:@%^]$/;
const UNQUOTED = 1;
const SINGLE = 2;
const DOUBLE = 4;

// Where each character may go, as shlex places it: bare, in single quotes (neither a quote nor
// a backslash), in double quotes (neither `$`, a backquote nor `!`; `"` and `\` escaped).
function placesOf(c: string): number {
  if (BARE.test(c)) return UNQUOTED | SINGLE | DOUBLE;
  if (c === "'" || c === '\\') return DOUBLE;
  if (c === '$' || c === '`' || c === '!') return SINGLE;
  return SINGLE | DOUBLE;
}

/**
 * One word, quoted when the shell would read it otherwise, as the reference's `shlex::try_quote`:
 * runs of characters that fit one way of quoting are quoted that way, bare first, then single.
 */
export function quoteWord(word: string): string {
  if (word === '') return "''";
  let out = '';
  let run = '';
  let places = UNQUOTED | SINGLE | DOUBLE;
  const flush = (): void => {
    if (run === '') return;
    if (places & UNQUOTED) out += run;
    else if (places & SINGLE) out += `'${run}'`;
    else out += `"${run.replace(/["\\]/g, (c) => `\\${c}`)}"`;
    run = '';
    places = UNQUOTED | SINGLE | DOUBLE;
  };
  for (const c of word) {
    const here = placesOf(c);
    if ((places & here) === 0) flush();
    places &= here;
    run += c;
  }
  flush();
  return out;
}

/** The word `quoteWord` made, as it was. */
export function unquoteWord(quoted: string): string {
  let out = '';
  for (let i = 0; i < quoted.length; i += 1) {
    const c = quoted[i]!;
    if (c === "'") {
      const end = quoted.indexOf("'", i + 1);
      out += quoted.slice(i + 1, end === -1 ? quoted.length : end);
      i = end === -1 ? quoted.length : end;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < quoted.length && quoted[j] !== '"'; j += 1) {
        if (quoted[j] === '\\' && j + 1 < quoted.length) j += 1;
        out += quoted[j];
      }
      i = j;
    } else out += c;
  }
  return out;
}

/** argv as one command line. */
export function joinWords(words: readonly string[]): string {
  return words.map(quoteWord).join(' ');
}

/** A token of a script: a word, or an operator between commands. */
export type ScriptToken = { kind: 'word'; text: string } | { kind: 'op'; text: string };

/**
 * A script cut into words and operators (`&&`, `||`, `;`, `|`); null when it uses anything
 * this does not model (substitutions, redirections, unbalanced quotes), which makes it opaque.
 */
export function scriptTokens(script: string): ScriptToken[] | null {
  const tokens: ScriptToken[] = [];
  let word: string | null = null;
  const flush = (): void => {
    if (word !== null) tokens.push({ kind: 'word', text: word });
    word = null;
  };
  for (let i = 0; i < script.length; i += 1) {
    const c = script[i]!;
    if (c === ' ' || c === '\t' || c === '\n') {
      flush();
    } else if (c === "'") {
      const end = script.indexOf("'", i + 1);
      if (end === -1) return null;
      word = (word ?? '') + script.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      let text = '';
      let j = i + 1;
      for (; j < script.length && script[j] !== '"'; j += 1) {
        if (script[j] === '$' || script[j] === '`') return null;
        if (script[j] === '\\' && j + 1 < script.length) j += 1;
        text += script[j];
      }
      if (j >= script.length) return null;
      word = (word ?? '') + text;
      i = j;
    } else if (c === '\\') {
      if (i + 1 >= script.length) return null;
      word = (word ?? '') + script[i + 1];
      i += 1;
    } else if (c === '&' || c === '|' || c === ';') {
      flush();
      const two = script.slice(i, i + 2);
      if (two === '&&' || two === '||') {
        tokens.push({ kind: 'op', text: two });
        i += 1;
      } else if (c === '&') return null;
      else tokens.push({ kind: 'op', text: c });
    } else if ('<>()$`'.includes(c)) {
      return null;
    } else {
      word = (word ?? '') + c;
    }
  }
  flush();
  return tokens;
}

/** The script's commands when it is plain words and operators; null otherwise. */
export function plainCommands(script: string): string[][] | null {
  const tokens = scriptTokens(script);
  if (tokens === null) return null;
  const commands: string[][] = [[]];
  for (const token of tokens) {
    if (token.kind === 'op') commands.push([]);
    else commands.at(-1)!.push(token.text);
  }
  const found = commands.filter((words) => words.length > 0);
  return found.length === 0 ? null : found;
}
