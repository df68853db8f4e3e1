// One sampling of the model, turned into the assistant's item: the item starts at the first
// sign of a message, grows with each delta, and completes with the final text. The caller
// observes each step (to tell the host and to record it); failures are thrown as the model
// client throws them.
import type { Clock } from '../../common/clock.js';
import { agentItem } from '../../common/rollout/rollout-items.js';
import type { AgentMessageItem, ModelUsage } from '../../common/wire-types.js';
import type { ModelClient, ModelRequest } from '../model/model-client.js';

/** What the turn does with each step of the reply. Items are passed as copies. */
export interface ReplyObserver {
  itemStarted(item: AgentMessageItem): void;
  delta(itemId: string, delta: string): void;
  itemCompleted(item: AgentMessageItem): void;
  /** A tool call the model made, as it sent it. */
  toolCall(item: Record<string, unknown>): void;
  usage(usage: ModelUsage): void;
}

/** The reply as far as it got. */
export interface Reply {
  agentItem: AgentMessageItem | null;
  /** Milliseconds from the turn's start to the first text. */
  firstTokenMs: number | null;
  /** The tool calls the model made, in its order. */
  toolCalls: Array<Record<string, unknown>>;
  /** The sampling's usage, once it completed. */
  usage: ModelUsage | null;
}

/**
 * Streams `request`, filling `reply` as it goes, so that when the stream throws (a failure, an
 * interrupt) the caller still sees how far the reply got.
 */
export async function streamReply(
  model: ModelClient,
  request: ModelRequest,
  startedAtMs: number,
  clock: Pick<Clock, 'now'>,
  reply: Reply,
  observer: ReplyObserver,
): Promise<void> {
  const start = (id: string, text: string) => {
    const item = agentItem(id, text, clock.now(), null);
    observer.itemStarted({ ...item });
    return item;
  };
  for await (const event of model.stream(request)) {
    switch (event.type) {
      case 'messageStarted':
        reply.agentItem ??= start(event.itemId, '');
        break;
      case 'textDelta': {
        const item = (reply.agentItem ??= start(event.itemId ?? 'msg', ''));
        reply.firstTokenMs ??= clock.now() - startedAtMs;
        item.text += event.delta;
        observer.delta(item.id, event.delta);
        break;
      }
      case 'messageDone': {
        reply.firstTokenMs ??= clock.now() - startedAtMs;
        // No output_item.added: like the reference, item/started already carries the text.
        const item = (reply.agentItem ??= start(event.itemId, event.text));
        item.id = event.itemId;
        item.text = event.text;
        item.completedAtMs = clock.now();
        observer.itemCompleted({ ...item });
        break;
      }
      case 'toolCall':
        observer.toolCall(event.item);
        break;
      case 'completed':
        observer.usage(event.usage);
        break;
    }
  }
}
