// Every request method the reference's `ClientRequest` enum knows, in its declaration order.
// The reference lists them all when it rejects an unknown method, and clients may match on
// that text, so thread-host reproduces the list even for methods it does not serve.
export const REFERENCE_CLIENT_METHODS: readonly string[] = [
  'initialize',
  'thread/start',
  'thread/resume',
  'thread/fork',
  'thread/archive',
  'thread/unsubscribe',
  'thread/name/set',
  'thread/unarchive',
  'thread/compact/start',
  'thread/rollback',
  'thread/list',
  'thread/loaded/list',
  'thread/read',
  'turn/start',
  'turn/interrupt',
];
