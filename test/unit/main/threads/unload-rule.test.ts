import { describe, expect, test } from 'vitest';
import { unloadDueAt, type UnloadInputs } from '../../../../src/main/threads/unload-rule.js';

/** An idle thread: no subscribers since 1 000 ms, no turn since 4 000 ms. */
const idle: UnloadInputs = { subscriberCount: 0, turnRunning: false, noSubscribersSince: 1_000, inactiveSince: 4_000 };

describe('unloadDueAt follows the reference rule (UnloadingState::unloading_target)', () => {
  test.each([
    { name: 'an idle thread is due the delay after the later instant (turn ended last)', inputs: idle, delaySecs: 60, due: 64_000 },
    {
      name: 'an idle thread is due the delay after the later instant (last subscriber left last)',
      inputs: { ...idle, noSubscribersSince: 9_000 },
      delaySecs: 60,
      due: 69_000,
    },
    { name: 'both instants equal', inputs: { ...idle, noSubscribersSince: 4_000 }, delaySecs: 1, due: 5_000 },
    { name: 'a delay of 0 is due at the later instant itself', inputs: idle, delaySecs: 0, due: 4_000 },
    { name: 'a thread with one subscriber is never due', inputs: { ...idle, subscriberCount: 1 }, delaySecs: 60, due: null },
    { name: 'a thread with many subscribers is never due', inputs: { ...idle, subscriberCount: 3 }, delaySecs: 0, due: null },
    { name: 'a thread running a turn is never due', inputs: { ...idle, turnRunning: true }, delaySecs: 0, due: null },
    {
      name: 'a subscribed thread running a turn is never due',
      inputs: { ...idle, subscriberCount: 1, turnRunning: true },
      delaySecs: 60,
      due: null,
    },
    { name: 'a null delay means never, even when idle', inputs: idle, delaySecs: null, due: null },
  ])('$name', ({ inputs, delaySecs, due }) => {
    expect(unloadDueAt(inputs, delaySecs)).toEqual(due);
  });

  test('the delay is counted in whole seconds and converted to milliseconds', () => {
    expect(unloadDueAt({ ...idle, noSubscribersSince: 0, inactiveSince: 0 }, 86_400)).toEqual(86_400_000);
  });
});
