// The ActorInit of an ephemeral thread on the embedded model: no rollout, no lock lease, so an
// actor can be spawned in a unit test without a home.
import type { ActorInit } from '../../src/common/actor-messages.js';

export const ephemeralActorInit = (threadId: string): ActorInit => ({
  threadId,
  history: null,
  resume: false,
  serializeHistory: false,
  writerLease: null,
  historyMode: 'legacy',
  fence: new SharedArrayBuffer(4),
  session: { createdAtMs: 0, originator: 'test', cliVersion: '0.1.0', source: 'vscode' },
  settings: {
    model: 'thread-host-echo',
    modelProvider: 'embedded',
    cwd: '/',
    approvalPolicy: 'never',
    approvalsReviewer: 'user',
    sandboxMode: 'read-only',
    baseInstructions: null,
    developerInstructions: null,
    effort: null,
    tools: [],
    dynamicTools: null,
    hostTools: false,
  },
  provider: { kind: 'embedded', id: 'embedded', name: 'embedded', apiKey: null },
  userAgent: 'test',
});
