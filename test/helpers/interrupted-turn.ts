// A turn interrupted while the mock model answers it (not before the model was asked, which
// would leave the stall queued for the next request): the shared step of the interrupt tests.
import type { MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import type { CheckedConnection } from './checked-connection.js';

/** Starts a turn of `input` on a stalled reply, interrupts it once the model was asked, and waits for its end. */
export async function interruptedTurn(server: CheckedConnection, mock: MockModel, threadId: string, input: string): Promise<void> {
  mock.enqueue({ kind: 'stall', ms: 20_000 });
  const asked = mock.requests.length;
  const { turn } = await server.request('turn/start', { threadId, input: [{ type: 'text', text: input }] });
  while (mock.requests.length === asked) await new Promise((resolve) => setTimeout(resolve, 10));
  await server.request('turn/interrupt', { threadId, turnId: turn.id });
  await server.waitForNotification('turn/completed', (p) => p.turn.id === turn.id, 20_000);
}
