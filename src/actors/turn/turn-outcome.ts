// How a turn ended, as the client is told and as the history closes it.
import type { TurnError } from '../../common/wire-types.js';
import type { TurnEnd, TurnTiming } from '../rollout-writer/rollout-format.js';
import { snakeCaseInfo } from './turn-error.js';

/** How the sampling ended, as the client will be told. */
export type TurnOutcome = { status: 'completed' | 'interrupted' | 'failed'; error: TurnError | null };

export function timingOf(turnId: string, startedAtMs: number, completedAtMs: number): TurnTiming {
  return {
    turnId,
    startedAtSec: Math.floor(startedAtMs / 1000),
    completedAtSec: Math.floor(completedAtMs / 1000),
    durationMs: completedAtMs - startedAtMs,
  };
}

/** The rollout's view of an outcome; a failed turn records its error in snake_case. */
export function endOf(outcome: TurnOutcome, lastAgentMessage: string | null, timeToFirstTokenMs: number | null): TurnEnd {
  if (outcome.status === 'completed') return { status: 'completed', lastAgentMessage, timeToFirstTokenMs };
  if (outcome.status === 'interrupted') return { status: 'interrupted' };
  return { status: 'failed', message: outcome.error!.message, codexErrorInfo: snakeCaseInfo(outcome.error!.codexErrorInfo) };
}

/** A failure of the host itself, not of the model. */
export const hostFailure = (message: string): { status: 'failed'; error: TurnError } => ({
  status: 'failed',
  error: { message, codexErrorInfo: 'other', additionalDetails: null, misalignment: null },
});
