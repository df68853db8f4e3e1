// A large turn input comes back from its worker only encoded (encoded-content.ts): the mirror
// takes the input this host kept when it sent the turn, and the kept input never outlives its
// turn.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import type { ActorEvent } from '../../../../src/common/actor-messages.js';
import type { UserInput } from '../../../../src/common/wire-types.js';
import { LoadedThread } from '../../../../src/main/threads/loaded-thread.js';
import { handleActorEvent } from '../../../../src/main/threads/turn-events.js';
import { stubHostContext } from '../../../helpers/stub-host-context.js';
import { acceptTurn, newTurn } from '../../../helpers/loaded-thread-events.js';
import type { ThreadId } from '../../../../src/common/thread-id.js';

const home = mkdtempSync(join(tmpdir(), 'thread-host-large-input-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

const THREAD = '01a23644-4410-7392-9ce9-3a08921e3af1' as ThreadId;
const TURN = '01a23644-4410-7392-9ce9-3a08921e3af2';
const INPUT: UserInput[] = [{ type: 'text', text: 'pasted "file" ✓\n'.repeat(5_000), text_elements: [] }];

/** A loaded thread with one turn accepted; `kept` says whether turn/start kept its large input. */
function setup(kept: boolean) {
  const logged: Array<[string, string]> = [];
  const ctx = stubHostContext(home, { log: (level: string, message: string) => logged.push([level, message]) });
  const thread = new LoadedThread(THREAD, 0);
  thread.published(0);
  ctx.directory.register(thread);
  acceptTurn(thread, newTurn(TURN), 0, kept ? INPUT : null);
  return { ctx, thread, logged };
}

/** The event as the worker posts it for a large input: the item without its content. */
const userItem = (): ActorEvent => ({
  type: 'userItem',
  threadId: THREAD,
  turnId: TURN,
  item: { type: 'userMessage', id: 'item-1', clientId: null, content: [], startedAtMs: 1, completedAtMs: 1 },
  ordinal: null,
  contentJson: Buffer.from(JSON.stringify(INPUT)),
});

test('the mirror takes the kept input, which is then forgotten', () => {
  const { ctx, thread, logged } = setup(true);
  handleActorEvent(ctx, userItem());
  expect([thread.turns[0]!.items, thread.takeLargeInput(TURN), logged]).toEqual([
    [{ type: 'userMessage', id: 'item-1', clientId: null, content: INPUT, startedAtMs: 1, completedAtMs: 1 }],
    undefined,
    [],
  ]);
});

test('an input this host did not keep is decoded from the encoding, with a warning', () => {
  const { ctx, thread, logged } = setup(false);
  handleActorEvent(ctx, userItem());
  expect([thread.turns[0]!.items[0], logged]).toEqual([
    { type: 'userMessage', id: 'item-1', clientId: null, content: INPUT, startedAtMs: 1, completedAtMs: 1 },
    [['warn', 'a large turn input came back that this host did not keep; decoding it']],
  ]);
});

test('a turn that ends before its input came back keeps nothing', () => {
  const { ctx, thread } = setup(true);
  handleActorEvent(ctx, { type: 'turnEnded', threadId: THREAD, turnId: TURN, status: 'failed', error: null, completedAtMs: 2, durationMs: 1, persisted: true });
  expect([thread.turns[0]!.status, thread.takeLargeInput(TURN)]).toEqual(['failed', undefined]);
});
