// The reference's legacy history format: no `ordinal`, the turn's user and assistant messages
// recorded as `user_message` / `agent_message` events beside their response items. Cursors into
// legacy history name turns by id, so no line anchors one. The line builders are in
// rollout-lines.ts; this is their arrangement into turns.
import type { RolloutFormat } from './rollout-format.js';
import * as messages from './message-lines.js';
import * as lines from './rollout-lines.js';
import { toolCallLine, toolOutputLine } from './tool-lines.js';

export const legacyFormat: RolloutFormat = {
  historyMode: 'legacy',
  stampOrdinal: null,
  sessionMeta: (meta, nowMs) => [lines.sessionMeta(meta, nowMs, 'legacy')],
  turnStart: ({ turnId, startedAtMs, context, userItem, modelContent }) => ({
    lines: [
      lines.taskStarted(turnId, Math.floor(startedAtMs / 1000), startedAtMs),
      lines.turnContext(context, startedAtMs),
      ...messages.userMessage(userItem, startedAtMs, turnId, modelContent),
    ],
  }),
  userInput: (item, turnId, nowMs, modelContent) => ({ lines: messages.userMessage(item, nowMs, turnId, modelContent) }),
  agentMessage: (item, turnId, nowMs) => ({ lines: messages.agentMessage(item, nowMs, turnId) }),
  toolCall: (raw, turnId, nowMs) => [toolCallLine(raw, turnId, nowMs)],
  // Legacy history keeps no tool items.
  toolItem: () => ({ lines: [] }),
  toolOutput: (answer, turnId, nowMs) => [toolOutputLine(answer, turnId, nowMs)],
  // Legacy history keeps no tool items (a user command's result note is all it has of one).
  standaloneItem: () => ({ lines: [] }),
  tokenCount: (usage, _turnId, nowMs) => [lines.tokenCount(usage, nowMs)],
  turnEnd: (timing, end, nowMs) => turnEndLines(timing, end, nowMs),
};

/** The line that closes a turn; both formats close turns alike. */
export function turnEndLines(...[timing, end, nowMs]: Parameters<RolloutFormat['turnEnd']>): string[] {
  switch (end.status) {
    case 'completed':
      return [lines.taskComplete({ ...timing, lastAgentMessage: end.lastAgentMessage, timeToFirstTokenMs: end.timeToFirstTokenMs }, nowMs)];
    case 'interrupted':
      return [lines.turnAborted({ ...timing, reason: 'interrupted' }, nowMs)];
    case 'failed':
      return lines.turnFailed({ ...timing, lastAgentMessage: null, message: end.message, codexErrorInfo: end.codexErrorInfo }, nowMs);
  }
}
