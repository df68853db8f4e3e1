// What a subscriber sees of one turn answered by the mock model, in the reference's order.

/** The notification methods of one turn whose reply streams in `deltas` pieces. */
export const turnMethods = (deltas: number): string[] => [
  'thread/status/changed',
  'turn/started',
  'item/started',
  'item/completed',
  'item/started',
  ...Array.from({ length: deltas }, () => 'item/agentMessage/delta'),
  'item/completed',
  'thread/tokenUsage/updated',
  // A completed turn moves the thread's read state (thread-read-states.ts), as the reference's does.
  'thread/readState/changed',
  'thread/status/changed',
  'turn/completed',
];
