// One connection's input keeps its order around a line parsed off the main thread: what
// arrives after it waits for its outcome; with nothing waiting, input is applied at once.
import { describe, expect, test } from 'vitest';
import { ConnectionInput } from '../../../../src/main/input/connection-input.js';

/** A promise the test settles by hand. */
function deferred<T>(): { promise: Promise<T>; resolve(value: T): void; reject(error: Error): void } {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

/** Lets every pending promise reaction run. */
const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('ConnectionInput', () => {
  test('with nothing waiting, a step runs at once, synchronously', () => {
    const input = new ConnectionInput(() => undefined);
    const ran: string[] = [];
    input.push(() => ran.push('a'));
    input.push(() => ran.push('b'));
    expect(ran).toEqual(['a', 'b']);
    expect(input.waiting).toBe(0);
  });

  test('steps after a parse wait for it, then run in arrival order, the close included', async () => {
    const input = new ConnectionInput(() => undefined);
    const ran: string[] = [];
    const large = deferred<string>();
    input.push(() => ran.push('before'));
    input.pushAfter(large.promise, (value) => ran.push(value));
    input.push(() => ran.push('after'));
    input.push(() => ran.push('closed'));
    await settled();
    expect(ran).toEqual(['before']);
    expect(input.waiting).toBe(3);
    large.resolve('large');
    await settled();
    expect(ran).toEqual(['before', 'large', 'after', 'closed']);
    expect(input.waiting).toBe(0);
    input.push(() => ran.push('later'));
    expect(ran.at(-1)).toBe('later');
  });

  test('two parses in a row are applied in arrival order even when the second finishes first', async () => {
    const input = new ConnectionInput(() => undefined);
    const ran: string[] = [];
    const first = deferred<string>();
    const second = deferred<string>();
    input.pushAfter(first.promise, (value) => ran.push(value));
    input.push(() => ran.push('between'));
    input.pushAfter(second.promise, (value) => ran.push(value));
    second.resolve('second');
    await settled();
    expect(ran).toEqual([]);
    first.resolve('first');
    await settled();
    expect(ran).toEqual(['first', 'between', 'second']);
  });

  test('another connection does not wait for this one', async () => {
    const mine = new ConnectionInput(() => undefined);
    const other = new ConnectionInput(() => undefined);
    const ran: string[] = [];
    mine.pushAfter(deferred<string>().promise, (value) => ran.push(value));
    mine.push(() => ran.push('mine'));
    other.push(() => ran.push('other'));
    await settled();
    expect(ran).toEqual(['other']);
  });

  test('a step that throws, or a parse that rejects, is logged and the rest still run', async () => {
    const logged: string[] = [];
    const input = new ConnectionInput((_level, message) => logged.push(message));
    const ran: string[] = [];
    const large = deferred<string>();
    input.pushAfter(large.promise, (value) => ran.push(value));
    input.push(() => {
      throw new Error('boom');
    });
    input.push(() => ran.push('after'));
    large.reject(new Error('parse failed'));
    await settled();
    expect({ ran, logged }).toEqual({ ran: ['after'], logged: ['input step failed before it ran', 'input step failed'] });
  });
});
