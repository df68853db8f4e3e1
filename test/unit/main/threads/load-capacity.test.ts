import { expect, test } from 'vitest';
import { RpcError } from '../../../../src/common/errors.js';
import { LoadCapacity } from '../../../../src/main/threads/load-capacity.js';

function capacity(registered: number, evicting: Promise<'complete'> | null, unloading: Promise<'complete'> | null) {
  return new LoadCapacity({
    directory: { registeredCount: registered },
    supervisor: { tryEvictIdle: () => evicting },
    unloader: { anyFinished: () => unloading },
    maxLoadedThreads: 3,
    remedy: 'raise max_loaded_threads (now 3) in config.toml or unload threads',
  });
}

test('below max_loaded_threads there is room at once, without waiting', () => {
  expect(capacity(2, null, null).roomOrWait()).toBe(null);
});

test('a full host first waits for an idle thread it unloads early, then for an unload already running', () => {
  const evicting = Promise.resolve('complete' as const);
  const unloading = Promise.resolve('complete' as const);
  expect(capacity(3, evicting, unloading).roomOrWait()).toBe(evicting);
  expect(capacity(3, null, unloading).roomOrWait()).toBe(unloading);
});

test('a full host with nothing on its way out refuses with -32001 "host is full"', () => {
  let thrown: unknown;
  try {
    capacity(3, null, null).roomOrWait();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(RpcError);
  expect((thrown as RpcError).toJSON()).toEqual({
    code: -32001,
    message: 'host is full: 3 threads are loaded, the most it admits; raise max_loaded_threads (now 3) in config.toml or unload threads',
    data: { reason: 'hostFull' },
  });
});
