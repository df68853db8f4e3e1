import { describe, expect, test } from 'vitest';
import { LifecycleError, transition, type LifecycleKind, type ThreadLifecycle } from '../../../../src/main/threads/lifecycle.js';

/** One example state of each kind. */
const STATES: Record<LifecycleKind, ThreadLifecycle> = {
  loading: { kind: 'loading', since: 10 },
  loaded: { kind: 'loaded', since: 20 },
  unloading: { kind: 'unloading', reason: 'idle', since: 30 },
  unloaded: { kind: 'unloaded', reason: 'shutdown' },
};

const KINDS = Object.keys(STATES) as LifecycleKind[];

/** The moves a thread may make; every other pair, self-moves included, is forbidden. */
const ALLOWED = new Set(['loading->loaded', 'loading->unloading', 'loaded->unloading', 'unloading->unloaded']);

const PAIRS = KINDS.flatMap((from) => KINDS.map((to) => ({ from, to, allowed: ALLOWED.has(`${from}->${to}`) })));

describe('the lifecycle transition table', () => {
  test('covers all sixteen pairs of kinds, four of them allowed', () => {
    expect({ pairs: PAIRS.length, allowed: PAIRS.filter((pair) => pair.allowed).length }).toEqual({ pairs: 16, allowed: 4 });
  });

  test.each(PAIRS.filter((pair) => pair.allowed))('$from -> $to is allowed and returns the next state', ({ from, to }) => {
    expect(transition(STATES[from], STATES[to])).toEqual(STATES[to]);
  });

  test.each(PAIRS.filter((pair) => !pair.allowed))('$from -> $to is refused with a LifecycleError', ({ from, to }) => {
    let thrown: unknown;
    try {
      transition(STATES[from], STATES[to]);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(LifecycleError);
    expect((thrown as Error).message).toEqual(`illegal thread lifecycle transition ${from} -> ${to}`);
  });

  test('the next state keeps its own data, including the unload reason', () => {
    const next: ThreadLifecycle = { kind: 'unloading', reason: 'workerLost', since: 99 };
    expect(transition({ kind: 'loaded', since: 1 }, next)).toEqual({ kind: 'unloading', reason: 'workerLost', since: 99 });
  });
});
