// The smallest legacy rollout thread/list shows: a session_meta and one user message, written
// where the host files a rollout created at `created`. Tests of listings write many of these.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { rolloutPathFor } from '../../src/common/rollout/rollout-path.js';

export interface MinimalRollout {
  threadId: string;
  /** RFC 3339: the session_meta's and the message's timestamp, and the file name's time. */
  created: string;
  message: string;
  /** The thread the session_meta names, when not the file's own (a rewritten file). */
  owner?: string;
  /** The time in the file's name and its date directories, when not `created` (another writer's clock). */
  namedAt?: string;
  /**
   * The session_meta's `model_provider`; none when not given, as older rollouts record none, so
   * a listing counts it as its default provider's whatever the home's config names.
   */
  modelProvider?: string;
  /** The session_meta's `source` as the file holds it: 'vscode' when not given, left out when given as undefined. */
  source?: unknown;
}

/** Writes the rollout; its path. */
export function writeMinimalRollout(home: string, rollout: MinimalRollout): string {
  const { threadId, created, message, owner = threadId, namedAt = created, modelProvider } = rollout;
  const source = 'source' in rollout ? rollout.source : 'vscode';
  const path = rolloutPathFor(home, threadId, Date.parse(namedAt));
  mkdirSync(dirname(path), { recursive: true });
  const meta = { timestamp: created, type: 'session_meta', payload: { id: owner, timestamp: created, cwd: '/w', originator: 'o', cli_version: '1', source, model_provider: modelProvider, history_mode: 'legacy' } };
  const user = { timestamp: created, type: 'event_msg', payload: { type: 'user_message', message, images: [], local_images: [], text_elements: [] } };
  writeFileSync(path, `${JSON.stringify(meta)}\n${JSON.stringify(user)}\n`);
  return path;
}
