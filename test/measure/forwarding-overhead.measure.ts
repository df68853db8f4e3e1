// What forwarding costs a turn: turn/start → turn/completed as a client of the owner sees it
// (direct) and as a client of another host sees it (forwarded over a peer link), on one thread,
// the two interleaved turn by turn so both see the same machine. Prints the p50 and p90 of
// each and their difference; asserts only that every turn completed.
//   npm run build && npx vitest run --config vitest.measure.config.ts test/measure/forwarding-overhead.measure.ts
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { startMockModel } from '../../src/main/mock-model/mock-model-server.js';
import { testDatabase } from '../helpers/test-database.js';
import { WsServer, type WsClient } from '../helpers/ws-server.js';

const TURNS = Number(process.env.FORWARDING_TURNS) || 100;
const WARM_UP_TURNS = 5;

async function turnMs(client: WsClient, threadId: string): Promise<number> {
  const startedAt = performance.now();
  const { turn } = await client.request('turn/start', { threadId, input: [{ type: 'text', text: 'measure' }] });
  const completed = await client.waitForNotification('turn/completed', (p) => p.turn.id === turn.id);
  expect(completed.turn.status).toBe('completed');
  return performance.now() - startedAt;
}

const percentile = (samples: number[], p: number): number => {
  const sorted = [...samples].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

test(`forwarding overhead: ${TURNS} turns direct and ${TURNS} forwarded, interleaved`, async () => {
  const mock = await startMockModel({ reply: 'Done' });
  const db = await testDatabase();
  const dir = mkdtempSync(join(tmpdir(), 'forwarding-overhead-'));
  writeFileSync(join(dir, 'fleet-secret'), 'fleet-secret-0123456789abcdef-0123456789\n');
  const rootConfig = [`thread_store = "postgres"`, `postgres_url = ${JSON.stringify(db.url)}`, `fleet_secret_file = ${JSON.stringify(join(dir, 'fleet-secret'))}`].join('\n');
  const [owner, other] = await Promise.all([WsServer.start({ modelUrl: mock.url, rootConfig }), WsServer.start({ modelUrl: mock.url, rootConfig })]);
  try {
    const direct = await owner.connect();
    const forwarded = await other.connect();
    const { thread } = await direct.request('thread/start', {});
    // Another host finds a thread in the store once its first turn wrote it.
    await turnMs(direct, thread.id);
    await forwarded.request('thread/resume', { threadId: thread.id });
    const samples = { direct: [] as number[], forwarded: [] as number[] };
    for (let i = 0; i < WARM_UP_TURNS + TURNS; i += 1) {
      // Each turn is started by one client and completes for both (both are subscribed).
      const directMs = await turnMs(direct, thread.id);
      const forwardedMs = await turnMs(forwarded, thread.id);
      if (i < WARM_UP_TURNS) continue;
      samples.direct.push(directMs);
      samples.forwarded.push(forwardedMs);
    }
    const row = (name: keyof typeof samples) => `${name.padEnd(9)} p50 ${percentile(samples[name], 50).toFixed(2)} ms  p90 ${percentile(samples[name], 90).toFixed(2)} ms`;
    const overhead = percentile(samples.forwarded, 50) - percentile(samples.direct, 50);
    process.stdout.write(`turn/start → turn/completed, ${TURNS} turns each, interleaved\n${row('direct')}\n${row('forwarded')}\nforwarding adds ${overhead.toFixed(2)} ms at p50 (×${(percentile(samples.forwarded, 50) / percentile(samples.direct, 50)).toFixed(2)})\n`);
    expect(samples.forwarded).toHaveLength(TURNS);
  } finally {
    await Promise.all([owner.stop(), other.stop()]);
    await mock.close();
  }
});
