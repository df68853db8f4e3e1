// What the host is told of a history a cold resume read: its turns and where they sit, and
// what its session_meta and last token count recorded.
import type { ActorResumeState } from '../common/actor-messages.js';
import { ownedUtf8 } from '../common/encoded-content.js';
import { fullTurns } from '../common/rollout/history-view.js';
import type { ParsedRollout } from '../common/rollout/rollout-reader.js';
import { usageOf } from '../common/token-usage.js';
import type { HistoryMode } from './rollout-writer/rollout-format.js';

/** `parsed` as the host receives it; `serializeHistory`: with the whole turns too (ActorResumeState.fullTurnsJson). */
export function resumeStateOf(parsed: ParsedRollout, historyMode: HistoryMode, serializeHistory: boolean): ActorResumeState {
  return {
    historyMode,
    turns: parsed.turns,
    // Transferred to the main thread, so alone in its buffer.
    fullTurnsJson: serializeHistory ? ownedUtf8(JSON.stringify(fullTurns(historyMode, parsed.turns))) : null,
    positions: parsed.positions,
    preview: parsed.preview,
    updatedAtMs: parsed.updatedAtMs,
    createdAtMs: parsed.meta?.createdAtMs ?? null,
    cwd: parsed.meta?.cwd ?? null,
    originator: parsed.meta?.originator ?? null,
    cliVersion: parsed.meta?.cliVersion ?? null,
    source: parsed.meta?.source?.value ?? null,
    forkedFromId: parsed.meta?.forkedFromId ?? null,
    dynamicTools: parsed.meta?.dynamicTools ?? null,
    modelProvider: parsed.meta?.modelProvider ?? null,
    model: parsed.meta?.model ?? null,
    lastTokenUsage: parsed.lastTokenUsage
      ? {
          total: usageOf(parsed.lastTokenUsage.total),
          last: usageOf(parsed.lastTokenUsage.last),
          modelContextWindow: parsed.lastTokenUsage.modelContextWindow,
        }
      : null,
  };
}
