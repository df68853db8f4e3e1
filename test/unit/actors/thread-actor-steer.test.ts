// Input steered into a turn, at the actor: before the turn begins it follows the turn's own
// input and the model answers both, in the order they came even when one's image takes time to
// prepare; once the turn has ended it is not lost silently.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { expect, test } from 'vitest';
import { readFaults } from '../../../src/actors/faults.js';
import { ThreadActor } from '../../../src/actors/thread-actor.js';
import type { ActorEvent } from '../../../src/common/actor-messages.js';
import { systemClock } from '../../../src/common/clock.js';
import { ephemeralActorInit } from '../../helpers/actor-init.js';

const text = (value: string) => [{ type: 'text' as const, text: value, text_elements: [] }];

/** An ephemeral thread's actor, its events kept; `done` settles when a turn ends. */
function recordingActor(): { init: ReturnType<typeof ephemeralActorInit>; events: ActorEvent[]; done: Promise<void>; actor: ThreadActor } {
  const init = ephemeralActorInit('t');
  const events: ActorEvent[] = [];
  let ended: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (ended = resolve));
  const actor = new ThreadActor(init, (event) => {
    events.push(event);
    if (event.type === 'turnEnded') ended();
  }, readFaults({}), systemClock);
  return { init, events, done, actor };
}

test('input steered into a turn that has not begun follows its input; input after its end is a warning', async () => {
  const { init, events, done, actor } = recordingActor();
  actor.startTurn({ turnId: 'turn-1', userItemId: 'u1', clientId: null, input: text('hi'), settings: init.settings, outputSchema: null });
  actor.steer({ turnId: 'turn-1', userItemId: 'u2', clientId: 'c2', input: text('more') });
  await done;
  actor.steer({ turnId: 'turn-1', userItemId: 'u3', clientId: null, input: text('late') });
  await actor.close();

  const summary = events.map((event) => {
    if (event.type === 'userItem') return ['userItem', event.item.id, event.item.clientId, event.item.content[0]];
    if (event.type === 'agentItemCompleted') return ['agent', event.item.text];
    if (event.type === 'turnEnded') return ['ended', event.status];
    if (event.type === 'warning') return ['warning', event.message];
    return [event.type];
  }).filter((entry) => entry[0] !== 'agentItemStarted' && entry[0] !== 'agentDelta');
  expect(summary).toEqual([
    ['turnStarted'],
    ['userItem', 'u1', null, text('hi')[0]],
    ['userItem', 'u2', 'c2', text('more')[0]],
    // The model is asked once, with both: the reply answers the last.
    ['agent', 'You said: more (message 2 in this thread)'],
    ['tokenUsage'],
    ['ended', 'completed'],
    ['warning', 'input sent to turn turn-1 arrived as it ended and was not sent to the model'],
  ]);
});

test('steered input with an image keeps its place: text steered after it is recorded after it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'steer-image-'));
  const path = join(dir, 'large.png');
  writeFileSync(path, await sharp(Buffer.alloc(3000 * 3000 * 3, 9), { raw: { width: 3000, height: 3000, channels: 3 } }).png().toBuffer());
  const { init, events, done, actor } = recordingActor();
  try {
    actor.startTurn({ turnId: 'turn-1', userItemId: 'u1', clientId: null, input: text('hi'), settings: init.settings, outputSchema: null });
    const image = [{ type: 'localImage' as const, path, detail: null }];
    actor.steer({ turnId: 'turn-1', userItemId: 'u2', clientId: null, input: image });
    actor.steer({ turnId: 'turn-1', userItemId: 'u3', clientId: null, input: text('after') });
    await done;
    const summary = events.flatMap((event) => {
      if (event.type === 'userItem') return [['userItem', event.item.id]];
      if (event.type === 'agentItemCompleted') return [['agent', event.item.text]];
      if (event.type === 'turnEnded') return [['ended', event.status]];
      return [];
    });
    expect(summary).toEqual([['userItem', 'u1'], ['userItem', 'u2'], ['userItem', 'u3'], ['agent', 'You said: after (message 3 in this thread)'], ['ended', 'completed']]);
  } finally {
    await actor.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
