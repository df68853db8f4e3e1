// The reference's legacy history format: no `ordinal`, the turn's user and assistant messages
// recorded as `user_message` / `agent_message` events beside their response items. The line
// builders are in rollout-lines.ts; this is their arrangement into turns.
import type { RolloutFormat } from './rollout-format.js';
import * as lines from './rollout-lines.js';

export const legacyFormat: RolloutFormat = {
  historyMode: 'legacy',
  sessionMeta: (meta, nowMs) => [lines.sessionMeta(meta, nowMs)],
  turnStart: ({ turnId, startedAtMs, context, userItem }) => [
    lines.taskStarted(turnId, Math.floor(startedAtMs / 1000), startedAtMs),
    lines.turnContext(context, startedAtMs),
    ...lines.userMessage(userItem, startedAtMs, turnId),
  ],
  agentMessage: (item, turnId, nowMs) => lines.agentMessage(item, nowMs, turnId),
  tokenCount: (usage, nowMs) => [lines.tokenCount(usage, nowMs)],
  turnEnd: (timing, end, nowMs) => {
    switch (end.status) {
      case 'completed':
        return [lines.taskComplete({ ...timing, lastAgentMessage: end.lastAgentMessage, timeToFirstTokenMs: end.timeToFirstTokenMs }, nowMs)];
      case 'interrupted':
        return [lines.turnAborted({ ...timing, reason: 'interrupted' }, nowMs)];
      case 'failed':
        return lines.turnFailed({ ...timing, lastAgentMessage: null, message: end.message, codexErrorInfo: end.codexErrorInfo }, nowMs);
    }
  },
};
