// The reference's paginated history format (its default since history modes exist): every line
// carries `ordinal`, its position in the file, contiguous from 0 (session_meta), as the second
// key; finished items are recorded as `item_completed` events, which paged reads of the history
// point at. A turn, as codex 0.171.0 writes one after the first:
//
//   task_started  turn_context  response_item(user)  item_completed(user)
//   item_completed(agent)  response_item(assistant)  token_count  task_complete|turn_aborted
//
// The ordinal is stamped by the appender as each line is written (see RolloutAppender), so a
// failed write never leaves a gap: the next line takes the ordinal the failed one would have.
import { turnEndLines } from './legacy-format.js';
import type { FormattedLines, ModelContent, RolloutFormat, SessionMetaInput, TokenCountInput, TurnStart } from './rollout-format.js';
import type { AgentMessageItem, ToolCallItem, UserMessageItem } from '../../common/wire-types.js';
import * as messages from './message-lines.js';
import * as lines from './rollout-lines.js';
import { toolCallLine, toolItemCompletedLine, toolOutputLine } from './tool-lines.js';
import type { ToolAnswer } from '../../common/actor-messages.js';

// Every line the builders make starts with its timestamp member; the ordinal goes right after.
const TIMESTAMP_MEMBER = /^\{"timestamp":"[^"\\]*",/;

/**
 * The paginated format of one thread. A class, so an actor costs one two-field object: a
 * literal of closures over `threadId` cost five closures and a context per loaded thread.
 */
class PaginatedFormat implements RolloutFormat {
  readonly historyMode = 'paginated';
  readonly stampOrdinal = stampOrdinal;
  readonly turnEnd = turnEndLines;

  constructor(readonly threadId: string) {}

  sessionMeta(meta: SessionMetaInput, nowMs: number): string[] {
    return [lines.sessionMeta(meta, nowMs, 'paginated')];
  }

  turnStart({ turnId, startedAtMs, context, userItem, modelContent }: TurnStart): FormattedLines {
    return {
      lines: [
        lines.taskStarted(turnId, Math.floor(startedAtMs / 1000), startedAtMs),
        lines.turnContext(context, startedAtMs),
        messages.userResponseItem(userItem, startedAtMs, turnId, modelContent),
        messages.itemCompleted(this.threadId, turnId, userItem, startedAtMs),
      ],
      turnLine: 0,
      itemLine: 3,
    };
  }

  userInput(item: UserMessageItem, turnId: string, nowMs: number, modelContent?: ModelContent): FormattedLines {
    return { lines: [messages.userResponseItem(item, nowMs, turnId, modelContent), messages.itemCompleted(this.threadId, turnId, item, nowMs)], itemLine: 1 };
  }

  agentMessage(item: AgentMessageItem, turnId: string, nowMs: number): FormattedLines {
    return { lines: [messages.itemCompleted(this.threadId, turnId, item, nowMs), messages.agentResponseItem(item, nowMs, turnId)], itemLine: 0 };
  }

  toolCall(raw: Record<string, unknown>, turnId: string, nowMs: number): string[] {
    return [toolCallLine(raw, turnId, nowMs)];
  }

  toolItem(answer: ToolAnswer, turnId: string, nowMs: number): FormattedLines {
    if (answer.item === null) return { lines: [] };
    return { lines: [toolItemCompletedLine(this.threadId, turnId, answer.item, nowMs, answer.itemError, answer.itemOutput)], itemLine: 0 };
  }

  toolOutput(answer: ToolAnswer, turnId: string, nowMs: number): string[] {
    return [toolOutputLine(answer, turnId, nowMs)];
  }

  standaloneItem(item: ToolCallItem, turnId: string, nowMs: number): FormattedLines {
    return { lines: [toolItemCompletedLine(this.threadId, turnId, item, nowMs)], itemLine: 0 };
  }

  tokenCount(usage: TokenCountInput, _turnId: string, nowMs: number): string[] {
    return [lines.tokenCount(usage, nowMs)];
  }
}

export function paginatedFormat(threadId: string): RolloutFormat {
  return new PaginatedFormat(threadId);
}

/** `{"timestamp":"…","type":…}` → `{"timestamp":"…","ordinal":N,"type":…}`, the reference's key order. */
export function stampOrdinal(line: string, ordinal: number): string {
  const head = TIMESTAMP_MEMBER.exec(line);
  if (head === null) throw new Error(`rollout line does not start with its timestamp: ${line.slice(0, 60)}`);
  return `${head[0]}"ordinal":${ordinal},${line.slice(head[0].length)}`;
}
