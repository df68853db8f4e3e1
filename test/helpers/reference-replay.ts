// Replays a recording of the reference's answers (test/fixtures/reference-answers/*.jsonl, each
// line a request and its answer, the `thread/*` notifications since the request before, or
// the home's files) on thread-host, with the recording's normalization: the home is
// `$CODEX_HOME`, thread ids their labels, date directories `<date>`, file-name times `<time>`,
// index times `<time>`.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect } from 'vitest';
import type { Message, TestServer } from './test-server.js';

export type ReplayStep = {
  method?: string;
  params?: Message | string;
  /** The answer's result went through the recording's projection for `method`. */
  projected?: boolean;
  answer?: Message;
  notifications?: Message[];
  files?: string[];
  session_index?: Message[] | null;
};

export function readRecording(name: string): ReplayStep[] {
  return readFileSync(new URL(`../fixtures/reference-answers/${name}`, import.meta.url), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as ReplayStep);
}

export interface Replay {
  server: TestServer;
  home: string;
  /** Label (`<thread>`) → the id it stands for in this run. */
  ids: Record<string, string>;
  /** The recording's projection of a result, for steps marked `projected`. */
  project?: (method: string, result: Message) => unknown;
  /**
   * Checks a snapshot of the home's files where the run keeps them elsewhere (the PostgreSQL
   * store), given the snapshot with labels for ids; absent: the home's files are compared.
   */
  checkStored?: (expected: { files: string[]; session_index?: Message[] | null }) => Promise<void>;
}

/** Sends each request, checks each answer, notification burst and disk snapshot against the recording. */
export async function replay(steps: ReplayStep[], run: Replay): Promise<void> {
  const { server } = run;
  let seen = server.notifications().length;
  for (const step of steps) {
    if (step.notifications !== undefined) {
      // Notifications follow the reply in the same burst: wait for the last one expected, or,
      // when none is, for one more round trip, after which a notification sent would be here.
      const last = step.notifications.at(-1);
      if (last === undefined) await server.request('thread/loaded/list', {});
      else await server.waitForNotification(last.method, (p: Message) => p.threadId === concrete(last, run.ids).params.threadId);
      const got = server.notifications().slice(seen).filter((n) => String(n.method).startsWith('thread/'));
      expect(normalized(got.map((n) => ({ method: n.method, params: n.params })), run)).toEqual(step.notifications);
    } else if (step.files !== undefined) {
      const expected = { files: step.files, session_index: step.session_index };
      if (run.checkStored !== undefined) await run.checkStored(expected);
      else expect(normalized(diskSnapshot(run.home), run)).toEqual(expected);
    } else {
      seen = server.notifications().length;
      const reply = await server.requestRaw(step.method!, step.params === '<absent>' ? undefined : concrete(step.params, run.ids));
      const result = step.projected ? run.project!(step.method!, reply.result) : reply.result;
      expect(normalized(reply.error ? { error: reply.error } : { result }, run), `${step.method} ${JSON.stringify(step.params)}`).toEqual(step.answer);
    }
  }
}

function normalized(value: unknown, run: Replay): unknown {
  let text = JSON.stringify(value)
    .replaceAll(run.home, '$CODEX_HOME')
    .replace(/sessions\/\d{4}\/\d\d\/\d\d\//g, 'sessions/<date>/')
    .replace(/rollout-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-/g, 'rollout-<time>-')
    .replace(/"updated_at":"[^"]*"/g, '"updated_at":"<time>"');
  for (const [label, id] of Object.entries(run.ids)) text = text.replaceAll(id, label);
  return JSON.parse(text);
}

function concrete(value: unknown, ids: Record<string, string>): Message {
  let text = JSON.stringify(value);
  for (const [label, id] of Object.entries(ids)) text = text.replaceAll(label, id);
  return JSON.parse(text);
}

/** The rollouts under sessions/ and archived_sessions/ (sorted paths) and session_index.jsonl's lines. */
function diskSnapshot(home: string): { files: string[]; session_index: Message[] | null } {
  const files = ['sessions', 'archived_sessions'].flatMap((dir) => walk(join(home, dir))).map((path) => relative(home, path));
  const index = join(home, 'session_index.jsonl');
  const lines = existsSync(index) ? readFileSync(index, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Message) : null;
  return { files: files.sort(), session_index: lines };
}

function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? walk(join(dir, name)) : [join(dir, name)]));
}
