// Opt-in (`npm run test:interop`): the read-state scenario (test/helpers/read-state-scenario.ts)
// on codex-cli 0.171.0 still gives test/fixtures/reference-answers/thread-read-state.jsonl,
// the recording test/e2e/thread-read-state.test.ts holds thread-host to. With
// RECORD_REFERENCE=1 it writes the recording instead.
import { test } from 'vitest';
import { referenceAndMock } from './reference-and-mock.js';
import { checkRecordedScenario } from './recorded-scenario.js';
import { readStateScenario } from '../helpers/read-state-scenario.js';

const reference = referenceAndMock();

test('the reference answers the read-state scenario as recorded', () => checkRecordedScenario(reference, 'thread-read-state.jsonl', readStateScenario));
