// Opt-in (`npm run test:interop`): the revert scenario (test/helpers/revert-scenario.ts) on
// codex-cli 0.171.0 still gives test/fixtures/reference-answers/thread-revert.jsonl, the
// reference's behaviour thread-host's thread/revert is to match. With RECORD_REFERENCE=1 it
// writes the recording instead.
import { test } from 'vitest';
import { referenceAndMock } from './reference-and-mock.js';
import { checkRecordedScenario } from './recorded-scenario.js';
import { revertScenario } from '../helpers/revert-scenario.js';

const reference = referenceAndMock();

test('the reference answers the revert scenario as recorded', () => checkRecordedScenario(reference, 'thread-revert.jsonl', revertScenario));
