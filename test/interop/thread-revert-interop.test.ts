// Opt-in (`npm run test:interop`): the revert scenario (test/helpers/revert-scenario.ts) on
// codex-cli 0.171.0 still gives test/fixtures/reference-answers/thread-revert.jsonl, the
// reference's behaviour thread-host's thread/revert is to match. With RECORD_REFERENCE=1 it
// writes the recording instead.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { referenceAndMock } from './reference-and-mock.js';
import { revertScenario } from '../helpers/revert-scenario.js';
import { mockModelConfig, TestServer } from '../helpers/test-server.js';

const reference = referenceAndMock();
const RECORDING = new URL('../fixtures/reference-answers/thread-revert.jsonl', import.meta.url);

test('the reference answers the revert scenario as recorded', async () => {
  const home = mkdtempSync(join(tmpdir(), 'thread-host-interop-revert-'));
  try {
    writeFileSync(join(home, 'config.toml'), mockModelConfig(reference.mock.url, 'thread_unload_delay_secs = 0'));
    const lines = await revertScenario({
      home,
      mock: reference.mock,
      start: () => TestServer.start({ home, keepConfig: true, command: [reference.codex, 'app-server', '--listen', 'stdio://'] }),
    });
    if (process.env.RECORD_REFERENCE === '1') writeFileSync(RECORDING, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
    expect(lines).toEqual(readFileSync(RECORDING, 'utf8').trim().split('\n').map((line) => JSON.parse(line)));
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
