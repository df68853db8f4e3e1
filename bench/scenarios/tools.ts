// The tool-call round trip: the mock model answers a turn's request with a function call of a
// tool the client brought (thread/start's `dynamicTools`); the bench client answers the
// `item/tool/call` request the moment it arrives; the host gives the model the output in its
// next request. Measured on the mock's clock (the bench's): from the request the call
// answered to the next request, i.e. call out → request at the client → answer → next model
// request, per turn, after `warmupTurns` unmeasured ones. The floor beside it: a bare Node
// echo's request round trip over stdio, the least any JSON-RPC hop costs here.
import { performance } from 'node:perf_hooks';
import { functionCallItem } from '../../src/main/commands/mock-model/mock-model-server.js';
import { withBareEcho } from '../lib/bare-echo.js';
import { LatencyHistogram } from '../lib/histogram.js';
import type { AppServerClient } from '../lib/app-server-client.js';
import { SINGLE_CASE, textInput, withServer, type CaseContext, type Scenario } from './scenario.js';

const TURN_DEADLINE_MS = 30_000;
const TOOL = { type: 'function', name: 'lookup', description: 'Looks a key up', inputSchema: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] } };

export const tools: Scenario = {
  name: 'tools',
  summary: 'a client tool call per turn: model emits the call → item/tool/call at the client → answer → next model request',
  cases: () => SINGLE_CASE,
  async run(ctx) {
    await withBareEcho((echo) => withServer(ctx, {}, (client) => measure(ctx, client, echo)));
  },
};

async function measure(ctx: CaseContext, client: AppServerClient, echo: AppServerClient): Promise<void> {
  const { rec, params, mock } = ctx;
  let askedAt = 0;
  client.serveRequests((request, at) => {
    if (request.method !== 'item/tool/call') return;
    askedAt = at;
    client.answer(request.id, { contentItems: [{ type: 'inputText', text: `value of ${String(request.params?.arguments?.key)}` }], success: true });
  });
  const { thread } = await client.request('thread/start', { dynamicTools: [TOOL] });
  const roundTrip = new LatencyHistogram();
  const toClient = new LatencyHistogram();
  const floor = new LatencyHistogram();
  let failed = 0;
  const total = params.warmupTurns + params.turns;
  for (let i = 0; i < total; i += 1) {
    mock.enqueue({ kind: 'output', items: [functionCallItem(`call_${i}`, 'lookup', { key: `k${i}` })] });
    const completed = client.waitFor('turn/completed', thread.id, TURN_DEADLINE_MS);
    const first = mock.requests.length;
    await client.request('turn/start', { threadId: thread.id, input: textInput(`turn ${i}`) }, TURN_DEADLINE_MS);
    const { params: done } = await completed;
    if (done.turn?.status !== 'completed' || mock.requests.length < first + 2) failed += 1;
    else if (i >= params.warmupTurns) {
      const [called, next] = [mock.requests[first]!, mock.requests[first + 1]!];
      roundTrip.recordMs(next.receivedAt - called.receivedAt);
      toClient.recordMs(askedAt - called.receivedAt);
      const sentAt = performance.now();
      const { at } = await echo.requestTimed('thread/loaded/list', {});
      floor.recordMs(at - sentAt);
    }
    ctx.progress((i + 1) / total);
  }
  rec.latency('tool call round trip', roundTrip);
  rec.latency('model call → request at the client', toClient);
  rec.latency('bare node echo round trip (the floor)', floor);
  rec.figure('turns failed', failed, 'count');
  rec.check(failed === 0, `${failed} turns did not complete with a tool call answered`);
}
