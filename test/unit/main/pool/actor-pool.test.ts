import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, test } from 'vitest';
import type { ActorEvent, ActorInit } from '../../../../src/common/actor-messages.js';
import { ActorPool } from '../../../../src/main/pool/actor-pool.js';

// The pool loads the compiled worker entry; `npm test` builds before running vitest.
const WORKER = fileURLToPath(new URL('../../../../dist/workers/thread-host.js', import.meta.url));

let pool: ActorPool | null = null;
afterEach(async () => {
  await pool?.close();
  pool = null;
});

const init = (threadId: string): ActorInit => ({
  threadId,
  rolloutPath: null,
  resume: false,
  writerLease: null,
  historyMode: 'legacy',
  fence: new SharedArrayBuffer(4),
  session: { createdAtMs: 0, originator: 'test', cliVersion: '0.1.0', source: 'vscode' },
  settings: {
    model: 'thread-host-echo',
    modelProvider: 'embedded',
    cwd: '/',
    approvalPolicy: 'never',
    approvalsReviewer: 'user',
    sandboxMode: 'read-only',
    baseInstructions: null,
    developerInstructions: null,
    effort: null,
  },
  provider: { kind: 'embedded', id: 'embedded', name: 'embedded', apiKey: null },
  userAgent: 'test',
});

test('actors are spread evenly over the workers and keep answering after their workers go idle', async () => {
  expect(existsSync(WORKER)).toBe(true);
  const events: ActorEvent[] = [];
  pool = new ActorPool({ size: 2, filename: WORKER, onEvent: (e) => events.push(e), onWorkerLost: () => undefined, log: () => undefined });
  const ids = ['a', 'b', 'c', 'd', 'e', 'f'];
  await Promise.all(ids.map((id) => pool!.spawn(init(id), 5_000)));
  expect(Object.values(pool.placement()).sort()).toEqual([3, 3]);
  // With Piscina's default `atomics` an idle worker parks in Atomics.wait and its actors go
  // deaf; the pool disables that, so a turn started after an idle pause still streams back.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const link = pool.linkOf('d')!;
  await link.api.startTurn('d', {
    turnId: 't1',
    userItemId: 'u1',
    clientId: null,
    input: [{ type: 'text', text: 'ping', text_elements: [] }],
    settings: init('d').settings,
    outputSchema: null,
  });
  await expect.poll(() => events.find((e) => e.type === 'turnEnded')?.type, { timeout: 5_000 }).toBe('turnEnded');
  expect(events.filter((e) => e.threadId === 'd').map((e) => e.type)).toEqual([
    'turnStarted',
    'userItem',
    'agentItemStarted',
    // "You said: ping" streams as three word-sized deltas.
    'agentDelta',
    'agentDelta',
    'agentDelta',
    'agentItemCompleted',
    'tokenUsage',
    'turnEnded',
  ]);
  expect(await link.api.close('d')).toBe('closed');
  pool.forget('d');
  expect(Object.values(pool.placement()).sort()).toEqual([2, 3]);
});
