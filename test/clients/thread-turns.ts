// A thread's turns as thread-host reads them back (`thread/read` with its turns), reduced to
// what the clients decide: each turn's status and its items, a message as `role: text`.
import type { Message, WsClient } from '../helpers/ws-server.js';
import { pollUntil } from './deadline-poll.js';

export interface TurnSummary {
  status: string;
  items: string[];
}

function itemSummary(item: Message): string {
  switch (item.type) {
    case 'userMessage':
      return `user: ${item.content.map((part: Message) => part.text).join('')}`;
    case 'agentMessage':
      return `agent: ${item.text}`;
    default:
      return item.type;
  }
}

export async function threadTurns(control: WsClient, threadId: string): Promise<TurnSummary[]> {
  const { thread } = await control.request('thread/read', { threadId, includeTurns: true });
  return thread.turns.map((turn: Message) => ({ status: turn.status, items: turn.items.map(itemSummary) }));
}

/** The turns once there are `count` of them and none is still running. */
export function settledTurns(control: WsClient, threadId: string, count: number, deadlineMs = 20_000): Promise<TurnSummary[]> {
  return pollUntil(
    () => threadTurns(control, threadId),
    (turns) => turns.length >= count && turns.every((turn) => turn.status !== 'inProgress'),
    { deadlineMs, what: `${count} settled turns of ${threadId}` },
  );
}

/** The turns of a reply that took one turn: the user's text and the mock model's `Done`. */
export const answered = (text: string): TurnSummary => ({ status: 'completed', items: [`user: ${text}`, 'agent: Done'] });
