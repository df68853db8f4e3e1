// Every way the process ends runs the one shutdown sequence, in one order; what never came up
// (a listener that failed to start has no transport) is skipped, and a second call (a second
// signal) gets the first call's promise instead of a second sequence.
import { expect, test } from 'vitest';
import { HostShutdown } from '../../../../src/main/host/shutdown.js';
import type { HostContext } from '../../../../src/main/host-context.js';
import type { Transport } from '../../../../src/main/transport/transport.js';

/** A host whose parts record, in `steps`, what the shutdown asked of them. */
function recordingHost(steps: string[]): HostContext {
  const thread = { id: 'thread-1', runningTurnId: 'turn-1' };
  return {
    draining: false,
    log: (_level: string, message: string, fields: Record<string, unknown>) => void steps.push(`log ${message} ${JSON.stringify(fields)}`),
    connections: { inFlightTotal: () => 0 },
    directory: { loadedCount: 1, all: () => [thread] },
    pool: {
      linkOf: () => ({ api: { interrupt: (threadId: string, turnId: string) => (steps.push(`interrupt ${threadId} ${turnId}`), Promise.resolve()) } }),
      close: async () => void steps.push('pool.close'),
    },
    supervisor: { unloadAll: async (reason: string) => void steps.push(`unloadAll ${reason}`), stop: () => void steps.push('supervisor.stop') },
    locks: { close: () => void steps.push('locks.close'), settled: async () => void steps.push('locks.settled') },
    storedHistory: { close: async () => void steps.push('storedHistory.close') },
    mcp: { close: async () => void steps.push('mcp.close') },
    serverRequests: { cancelTurn: (threadId: string, turnId: string) => void steps.push(`cancelTurn ${threadId} ${turnId}`) },
    shell: { killAll: async () => void steps.push('shell.killAll'), exec: { killAll: () => void steps.push('shell.exec.killAll') } },
    store: { settled: async () => void steps.push('store.settled'), close: async () => void steps.push('store.close') },
  } as unknown as HostContext;
}

function recordingTransport(steps: string[]): Transport {
  return {
    stopAccepting: () => void steps.push('transport.stopAccepting'),
    flush: async () => void steps.push('transport.flush'),
    close: () => void steps.push('transport.close'),
  } as unknown as Transport;
}

test('a serving host stops accepting, unloads, stops its parts, flushes and closes the transport, then removes the listener\'s files', async () => {
  const steps: string[] = [];
  const ctx = recordingHost(steps);
  const shutdown = new HostShutdown(ctx, () => void steps.push('stopReporting'));
  shutdown.listenerCreated(() => void steps.push('listener.cleanUp'));
  shutdown.serving(recordingTransport(steps));
  const first = shutdown.run('SIGTERM');
  // A second signal while shutting down joins the first sequence.
  expect(shutdown.run('SIGINT')).toBe(first);
  await first;
  expect({ draining: ctx.draining, steps }).toEqual({
    draining: true,
    steps: [
      'transport.stopAccepting',
      'log shutting down {"why":"SIGTERM","loaded":1}',
      'shell.exec.killAll',
      'interrupt thread-1 turn-1',
      'cancelTurn thread-1 turn-1',
      'shell.killAll',
      'unloadAll shutdown',
      'store.settled',
      'mcp.close',
      'supervisor.stop',
      'stopReporting',
      'locks.close',
      'locks.settled',
      'store.close',
      'transport.flush',
      'transport.close',
      'pool.close',
      'storedHistory.close',
      'listener.cleanUp',
    ],
  });
});

test('a start that failed before the transport served runs the same sequence without the transport\'s stages', async () => {
  const steps: string[] = [];
  const shutdown = new HostShutdown(recordingHost(steps), () => void steps.push('stopReporting'));
  shutdown.listenerCreated(() => void steps.push('listener.cleanUp'));
  await shutdown.run('start-up failed');
  expect(steps).toEqual([
    'log shutting down {"why":"start-up failed","loaded":1}',
    'shell.exec.killAll',
    'interrupt thread-1 turn-1',
    'cancelTurn thread-1 turn-1',
    'shell.killAll',
    'unloadAll shutdown',
    'store.settled',
    'mcp.close',
    'supervisor.stop',
    'stopReporting',
    'locks.close',
    'locks.settled',
    'store.close',
    'pool.close',
    'storedHistory.close',
    'listener.cleanUp',
  ]);
});
