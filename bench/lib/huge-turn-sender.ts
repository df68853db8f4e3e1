// The `huge-line` scenario's sending client, run in a worker thread of the bench so that its
// own costs (serializing, masking and sending 5–10 MB frames, reading the turns' echoes, and
// the mock model that receives each turn's text) never stall the bench's main thread, where
// the other client's list probe is timed. It owns its mock model for the same reason.
//
//   main                         this worker
//   ◀── { type: 'mock', url }    mock model up (the server's home points at it)
//   ─── { type: 'connect', url } ▶ connect, start `count` threads, serialize the lines
//   ◀── { type: 'ready' }
//   ─── { type: 'go' }           ▶ the huge lines one by one, each awaited (a turn to its turn/completed)
//   ◀── { type: 'sent', … }      latencies, measured here (send → reply, send → completed)
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { parentPort, workerData } from 'node:worker_threads';
import { startMockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { pastedText } from './pasted-text.js';
import { WsBenchClient } from './ws-bench-client.js';

/**
 * What each huge line is: a turn/start whose text is the bulk (the case: the turn then
 * streams its text back to its subscriber, the sender), or a thread/loaded/list whose ignored
 * params are the bulk (a tiny reply: the input path alone).
 */
export type HugeKind = 'turn/start' | 'loaded/list';

/** What the scenario gives the worker. */
export interface SenderData {
  kind: HugeKind;
  /** Bytes of text per line. */
  bytes: number;
  count: number;
  /** Quiet time between one turn's completion and the next send. */
  pauseMs: number;
}

export type SenderCommand = { type: 'connect'; url: string } | { type: 'go' };

export type SenderEvent =
  | { type: 'mock'; url: string }
  | { type: 'ready' }
  | { type: 'sent'; replyMs: number[]; completedMs: number[]; lineBytes: number }
  | { type: 'failed'; error: string };

const TURN_DEADLINE_MS = 120_000;

const { kind, bytes, count, pauseMs } = workerData as SenderData;
const port = parentPort!;
const post = (event: SenderEvent) => port.postMessage(event);
const mock = await startMockModel({ reply: 'Done' });
let client: WsBenchClient | null = null;
let lines: Array<{ threadId: string | null; send: () => Promise<{ at: number }> }> = [];

port.on('message', (command: SenderCommand) => {
  const step = command.type === 'connect' ? connect(command.url) : go();
  step.catch((error: unknown) => post({ type: 'failed', error: String(error instanceof Error ? error.message : error) }));
});
post({ type: 'mock', url: mock.url });

async function connect(url: string): Promise<void> {
  client = await WsBenchClient.connect(url);
  const text = pastedText(bytes);
  for (let i = 0; i < count; i += 1) {
    if (kind === 'loaded/list') {
      lines.push({ threadId: null, send: client.prepare('thread/loaded/list', { pad: text }, TURN_DEADLINE_MS) });
      continue;
    }
    // A thread per turn: on one thread each turn would also carry every earlier turn to the model.
    const { thread } = await client.request('thread/start', {});
    const threadId = String(thread.id);
    lines.push({ threadId, send: client.prepare('turn/start', { threadId, input: [{ type: 'text', text, text_elements: [] }] }, TURN_DEADLINE_MS) });
  }
  post({ type: 'ready' });
}

async function go(): Promise<void> {
  const replyMs: number[] = [];
  const completedMs: number[] = [];
  for (const { threadId, send } of lines) {
    const completed = threadId === null ? null : client!.waitFor('turn/completed', threadId, TURN_DEADLINE_MS);
    const sentAt = performance.now();
    const { at } = await send();
    replyMs.push(at - sentAt);
    if (completed !== null) completedMs.push((await completed).at - sentAt);
    await delay(pauseMs);
  }
  lines = [];
  client?.close();
  await mock.close();
  post({ type: 'sent', replyMs, completedMs, lineBytes: bytes });
}
