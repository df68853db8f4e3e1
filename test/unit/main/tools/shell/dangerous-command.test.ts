// Which commands the reference deems dangerous (codex 0.171.0, probed under on-request in
// workspace-write: asked for; under never: refused), and the rule its request offers to keep.
import { expect, test } from 'vitest';
import { dangerousWords, scriptMightBeDangerous } from '../../../../../src/main/tools/shell/dangerous-command.js';
import { execpolicyAmendmentOf } from '../../../../../src/main/tools/shell/exec-approval.js';

const argvOf = (script: string) => ['/bin/bash', '-lc', script];

test('rm with a force flag is dangerous wherever the script runs it; nothing else is', () => {
  const asked = ['rm -rf x', 'rm -f x', 'rm -fr x', 'rm -r -f x', 'rm --force x', 'sudo rm -rf x', 'echo ok && rm -rf x', '/bin/rm -rf x', 'echo $(rm -rf x)', 'bash -c "rm -rf x"', 'rm -rf "a b"'];
  const notAsked = ['rm -r x', 'rm x', 'git reset --hard', 'git rm x', 'git -C . reset', 'git status', 'find . -delete', 'git checkout -- x', 'git clean -fd', 'xargs rm -rf'];
  expect(Object.fromEntries([...asked, ...notAsked].map((script) => [script, scriptMightBeDangerous(script)]))).toEqual(Object.fromEntries([...asked.map((s) => [s, true]), ...notAsked.map((s) => [s, false])]));
});

test('the rule offered is the first dangerous plain command, else the whole argv', () => {
  const rules = ['rm -rf x', 'echo ok && rm -rf x', 'sudo rm -rf x', '/bin/rm -rf x', 'echo $(rm -rf x)', 'bash -c "rm -rf x"'].map((script) => execpolicyAmendmentOf(script, argvOf(script), dangerousWords));
  expect(rules).toEqual([['rm', '-rf', 'x'], ['rm', '-rf', 'x'], ['sudo', 'rm', '-rf', 'x'], ['/bin/rm', '-rf', 'x'], ['/bin/bash', '-lc', 'echo $(rm -rf x)'], ['bash', '-c', 'rm -rf x']]);
  expect(execpolicyAmendmentOf('cat a.txt && touch t', argvOf('cat a.txt && touch t'), () => true)).toEqual(['cat', 'a.txt']);
});
