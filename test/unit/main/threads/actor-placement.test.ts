// A new thread is answered before its actor is placed (thread-loader.ts), and so are a turn
// and an interrupt sent to it meanwhile (handlers/turn.ts): their commands wait for the
// placement (actor-link.ts) and reach the actor in order once it is placed, or, if the
// placement fails, the turn ends failed and then the thread is unloaded. The router and directory are real (stub-host-context.ts); the
// pool's spawn is held open by the test, and the supervisor unloads at once.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { Router } from '../../../../src/main/router.js';
import type { UnloadReason } from '../../../../src/main/threads/lifecycle.js';
import type { LoadedThread } from '../../../../src/main/threads/loaded-thread.js';
import { stubHostContext } from '../../../helpers/stub-host-context.js';

let home: string;
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'actor-placement-'));
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

function deferred(): { promise: Promise<null>; resolve: () => void; reject: (error: Error) => void } {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<null>((res, rej) => {
    resolve = () => res(null);
    reject = rej;
  });
  return { promise, resolve, reject };
}

function harness() {
  const calls: string[] = [];
  const messages: Record<string, any>[] = [];
  const spawn = deferred();
  const placed = new Set<string>();
  const api = {
    startTurn: async (threadId: string, command: { turnId: string }) => void calls.push(`startTurn ${threadId} ${command.turnId}`),
    steerTurn: async (threadId: string, command: { turnId: string; input: Array<{ text: string }> }) => void calls.push(`steerTurn ${threadId} ${command.turnId} ${command.input[0]!.text}`),
    interrupt: async (threadId: string, turnId: string) => void calls.push(`interrupt ${threadId} ${turnId}`),
  };
  const ctx = stubHostContext(home, {
    supervisor: {
      noteChanged: () => undefined,
      unload: async (thread: LoadedThread, reason: UnloadReason) => {
        calls.push(`unload ${thread.id} ${reason}`);
        thread.unloadStarted(reason, 0);
        ctx.directory.remove(thread);
        thread.unloaded(reason);
        return 'complete';
      },
    },
    pool: {
      spawn: async (init: { threadId: string }) => {
        calls.push(`spawn ${init.threadId}`);
        await spawn.promise;
        placed.add(init.threadId);
        return null;
      },
      linkOf: (threadId: string) => (placed.has(threadId) ? { api } : undefined),
      forget: () => undefined,
    },
  });
  const connection = ctx.connections.open((line) => messages.push(JSON.parse(String(line))) > 0);
  const router = new Router(ctx, 8);
  const reply = async (id: number) => {
    await expect.poll(() => messages.find((m) => m.id === id), { timeout: 2_000 }).toBeDefined();
    return messages.find((m) => m.id === id)!;
  };
  router.handleLine(connection, JSON.stringify({ id: 0, method: 'initialize', params: { clientInfo: { name: 't', version: '0' } } }));
  return { router, connection, calls, messages, spawn, reply };
}

const turnStart = (id: number, threadId: string, text = 'hi') => JSON.stringify({ id, method: 'turn/start', params: { threadId, input: [{ type: 'text', text }] } });

test('a turn, input joining it and an interrupt on a thread whose actor is still being placed are answered at once and reach the actor in order once it is placed', async () => {
  const { router, connection, calls, spawn, reply } = harness();
  router.handleLine(connection, JSON.stringify({ id: 1, method: 'thread/start', params: {} }));
  const threadId = (await reply(1)).result.thread.id as string;
  router.handleLine(connection, turnStart(2, threadId));
  // A turn is in progress, so this input joins it, as the reference does (turn-steer.ts).
  router.handleLine(connection, turnStart(3, threadId, 'more'));
  const turns = [(await reply(2)).result.turn, (await reply(3)).result.turn];
  router.handleLine(connection, JSON.stringify({ id: 4, method: 'turn/interrupt', params: { threadId, turnId: turns[0].id } }));
  const interrupted = (await reply(4)).result;
  // All answered while the spawn is still held open: nothing has reached the actor yet.
  expect({ calls: [...calls], ids: turns.map((t) => t.id), statuses: turns.map((t) => t.status), interrupted }).toEqual({
    calls: [`spawn ${threadId}`],
    ids: [turns[0].id, turns[0].id],
    statuses: ['inProgress', 'inProgress'],
    interrupted: {},
  });
  spawn.resolve();
  await expect.poll(() => calls.length).toBe(4);
  expect(calls).toEqual([
    `spawn ${threadId}`,
    `startTurn ${threadId} ${turns[0].id}`,
    `steerTurn ${threadId} ${turns[0].id} more`,
    `interrupt ${threadId} ${turns[0].id}`,
  ]);
});

test('a turn waiting for a placement that fails ends failed, and the thread is unloaded', async () => {
  const { router, connection, calls, messages, spawn, reply } = harness();
  router.handleLine(connection, JSON.stringify({ id: 1, method: 'thread/start', params: {} }));
  const threadId = (await reply(1)).result.thread.id as string;
  router.handleLine(connection, turnStart(2, threadId));
  const { turn } = (await reply(2)).result;
  spawn.reject(new Error('no worker'));
  await expect.poll(() => calls.length).toBe(2);
  // The turn ended before the thread went.
  const completedAt = messages.findIndex((m) => m.method === 'turn/completed');
  expect(completedAt).toBeGreaterThan(-1);
  const completed = messages[completedAt]!.params;
  expect({ calls, id: completed.turn.id, status: completed.turn.status, error: completed.turn.error }).toEqual({
    calls: [`spawn ${threadId}`, `unload ${threadId} loadFailed`],
    id: turn.id,
    status: 'failed',
    error: { message: "could not start the turn: the thread's actor could not be placed", codexErrorInfo: 'other', additionalDetails: null, misalignment: null },
  });
});
