// A scenario run on the reference in a fresh home (config: the mock model, unload at once),
// its transcript compared with its recording in test/fixtures/reference-answers, or, with
// RECORD_REFERENCE=1, written as that recording.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { mockModelConfig, TestServer } from '../helpers/test-server.js';

export interface ReferenceSide {
  home: string;
  mock: MockModel;
  start(): Promise<TestServer>;
}

export async function checkRecordedScenario(
  reference: { codex: string; mock: MockModel },
  recording: string,
  scenario: (side: ReferenceSide) => Promise<unknown[]>,
): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), 'thread-host-interop-scenario-'));
  const path = new URL(`../fixtures/reference-answers/${recording}`, import.meta.url);
  try {
    writeFileSync(join(home, 'config.toml'), mockModelConfig(reference.mock.url, 'thread_unload_delay_secs = 0'));
    const lines = await scenario({
      home,
      mock: reference.mock,
      start: () => TestServer.start({ home, keepConfig: true, command: [reference.codex, 'app-server', '--listen', 'stdio://'] }),
    });
    if (process.env.RECORD_REFERENCE === '1') writeFileSync(path, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
    expect(lines).toEqual(readFileSync(path, 'utf8').trim().split('\n').map((line) => JSON.parse(line)));
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
