// Input steered into a turn, at the actor: before the turn begins it follows the turn's own
// input and the model answers both; once the turn has ended it is not lost silently.
import { expect, test } from 'vitest';
import { readFaults } from '../../../src/actors/faults.js';
import { ThreadActor } from '../../../src/actors/thread-actor.js';
import type { ActorEvent } from '../../../src/common/actor-messages.js';
import { systemClock } from '../../../src/common/clock.js';
import { ephemeralActorInit } from '../../helpers/actor-init.js';

const text = (value: string) => [{ type: 'text' as const, text: value, text_elements: [] }];

test('input steered into a turn that has not begun follows its input; input after its end is a warning', async () => {
  const init = ephemeralActorInit('t');
  const events: ActorEvent[] = [];
  let ended: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (ended = resolve));
  const actor = new ThreadActor(init, (event) => {
    events.push(event);
    if (event.type === 'turnEnded') ended();
  }, readFaults({}), systemClock);
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
