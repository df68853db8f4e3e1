// The command line and actions an `exec_command` item shows, for the scripts the reference was
// probed with (docs/tools.md, Commands), and the quoting of words as its shlex quotes them.
import { expect, test } from 'vitest';
import { joinWords, unquoteWord } from '../../../../../src/common/shell-words.js';
import { commandActionsOf } from '../../../../../src/main/tools/shell/command-actions.js';

const cwd = '/w';

test('reads, listings and searches are told apart; anything else is one unknown action', () => {
  const cases: Array<[string, unknown[]]> = [
    ['cat README.md', [{ type: 'read', command: 'cat README.md', name: 'README.md', path: '/w/README.md' }]],
    ['sed -n 1,5p README.md', [{ type: 'read', command: "sed -n '1,5p' README.md", name: 'README.md', path: '/w/README.md' }]],
    ['head -n 3 README.md | wc -l', [{ type: 'read', command: 'head -n 3 README.md', name: 'README.md', path: '/w/README.md' }]],
    ['tail -n 2 docs/a.md', [{ type: 'read', command: 'tail -n 2 docs/a.md', name: 'a.md', path: '/w/docs/a.md' }]],
    ['cd sub && cat x.txt', [{ type: 'read', command: 'cat x.txt', name: 'x.txt', path: '/w/sub/x.txt' }]],
    ['ls -la', [{ type: 'listFiles', command: 'ls -la', path: null }]],
    ['cd /tmp && ls', [{ type: 'listFiles', command: 'ls', path: null }]],
    ['rg -n foo .', [{ type: 'search', command: 'rg -n foo .', query: 'foo', path: '.' }]],
    ['grep -rn readme .', [{ type: 'search', command: 'grep -rn readme .', query: 'readme', path: '.' }]],
    ['find . -name "*.md"', [{ type: 'search', command: "find . -name '*.md'", query: '*.md', path: '.' }]],
    ['git status', [{ type: 'unknown', command: 'git status' }]],
    ['echo a; echo b; echo c', [{ type: 'unknown', command: 'echo a; echo b; echo c' }]],
    ['cat a.txt && echo done', [{ type: 'unknown', command: 'cat a.txt && echo done' }]],
    ['echo x > /var/tmp/out.txt && echo ok', [{ type: 'unknown', command: 'echo x > /var/tmp/out.txt && echo ok' }]],
    ['cat $(ls)', [{ type: 'unknown', command: 'cat $(ls)' }]],
  ];
  expect(cases.map(([script]) => [script, commandActionsOf(script, cwd)])).toEqual(cases);
});

test('words are quoted as the reference quotes them, and read back', () => {
  const script = `echo "it's $HOME" && cat a,b.txt`;
  expect(joinWords(['/bin/bash', '-lc', 'echo hi'])).toBe("/bin/bash -lc 'echo hi'");
  expect(joinWords(['/bin/bash', '-lc', script])).toBe(`/bin/bash -lc "echo \\"it's "'$HOME" && cat a,b.txt'`);
  expect(joinWords(['a', '', 'b=c', 'x/y.z'])).toBe("a '' b=c x/y.z");
  // A backslash keeps a run out of single quotes and `!` out of double ones, as in the
  // reference's `/bin/bash -lc "printf \"one\\nTWO\\n\" > a.txt"` (probed).
  expect(joinWords(['/bin/bash', '-lc', 'printf "one\\nTWO\\n" > a.txt'])).toBe('/bin/bash -lc "printf \\"one\\\\nTWO\\\\n\\" > a.txt"');
  expect(joinWords(['echo', 'hi!'])).toBe("echo 'hi!'");
  for (const word of [script, 'echo hi', "it's", 'a"b\\c', "a\\b'c!$d", '']) expect(unquoteWord(joinWords([word]))).toBe(word);
});
