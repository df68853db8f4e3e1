// Every reference method thread-host does not serve answers deliberately: the reference's own
// error where it has one (compared with test/fixtures/reference-answers/all-methods.jsonl,
// codex-cli 0.171.0 given `{}`), else -32601 naming what thread-host does not do.
import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { REFUSED_METHODS } from '../../src/main/refused-methods.js';
import { TestServer, type Message } from '../helpers/test-server.js';

const referenceAnswers = new Map(
  readFileSync(new URL('../fixtures/reference-answers/all-methods.jsonl', import.meta.url), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { method: string; answer: Message })
    .map(({ method, answer }) => [method, answer] as const),
);

test('each refused method gets its error, the reference one where the reference has one', async () => {
  const server = await TestServer.start();
  const kept: string[] = [];
  for (const [method, refusal] of REFUSED_METHODS) {
    const reply = await server.requestRaw(method, {});
    expect(reply.error, method).toEqual(refusal.toJSON());
    if (refusal.code === -32601) expect(refusal.message, method).toMatch(new RegExp(`^${method} is not supported: thread-host `));
    else {
      expect(reply.error, method).toEqual(referenceAnswers.get(method)!.error);
      kept.push(method);
    }
  }
  expect(kept).toEqual([
    'account/rateLimits/read',
    'account/usage/read',
    'account/workspaceMessages/read',
    'remoteControl/enable',
    'remoteControl/disable',
    'plugin/share/list',
  ]);
  // A refusal does not look at params: none, or params of any shape, get the same answer.
  expect((await server.requestRaw('fs/readFile')).error).toEqual(REFUSED_METHODS.get('fs/readFile')!.toJSON());
  expect((await server.requestRaw('account/rateLimits/read', { x: 1 })).error).toEqual(referenceAnswers.get('account/rateLimits/read')!.error);
  expect(await server.close()).toBe(0);
});

test('a refused method before initialize is not initialized, like every known method', async () => {
  const server = await TestServer.start({ initialize: false });
  expect((await server.requestRaw('thread/fork', { threadId: 'x' })).error).toEqual({ code: -32600, message: 'Not initialized' });
  expect(await server.close()).toBe(0);
});
