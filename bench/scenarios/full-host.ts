// `full-host`: a host started at `ulimit -n 1024` is flooded with 2,000 `thread/start`s, then
// every thread it admitted takes a turn while 200 more starts arrive. A full host must refuse
// the loads past what its descriptors can hold (-32001 "host is full") and keep every admitted
// thread's turn working and recorded (issue 13, item 4).
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { errorsOf, outcome, SINGLE_CASE, textInput, withServer, type Outcome, type Scenario } from './scenario.js';

// The case: the common default soft limit, and twice as many starts as it has descriptors.
const OPEN_FILE_LIMIT = 1024;
const STARTS = 2_000;
const STARTS_DURING_TURNS = 200;
const DEADLINE_MS = 120_000;

const isHostFull = (o: Outcome): boolean => o.error !== null && o.error.includes('host is full');
// 2,000 requests in one burst also pass the connection's max_in_flight_requests (1,024): those
// are refused -32001 "Server overloaded" before they reach the host, which is as harmless.
const isOverloaded = (o: Outcome): boolean => o.error !== null && o.error.includes('Server overloaded');

export const fullHost: Scenario = {
  name: 'full-host',
  summary: `${STARTS} thread/starts at ulimit -n ${OPEN_FILE_LIMIT}, then a turn on every admitted thread while ${STARTS_DURING_TURNS} more starts arrive`,
  cases: () => SINGLE_CASE,
  async run(ctx) {
    const { rec } = ctx;
    // `ulimit -n` in sh lowers the soft and the hard limit, so the server cannot raise it back.
    const argv = ['sh', '-c', `ulimit -n ${OPEN_FILE_LIMIT}; exec "$0" "$@"`, ...ctx.server.argv];
    await withServer({ ...ctx, server: { ...ctx.server, argv } }, {}, async (client) => {
      const startedAt = performance.now();
      const starts = await Promise.all(Array.from({ length: STARTS }, () => outcome(client.requestTimed('thread/start', {}, DEADLINE_MS))));
      rec.figure('all starts answered', performance.now() - startedAt, 'ms');
      const admitted = starts.flatMap((o) => (o.result === null ? [] : [o.result.thread as { id: string; path: string }]));
      const otherStartErrors = starts.filter((o) => o.error !== null && !isHostFull(o) && !isOverloaded(o));
      rec.figure('admitted', admitted.length, 'count', 'none');
      rec.figure('refused host full', starts.filter(isHostFull).length, 'count', 'none');
      rec.figure('refused overloaded (in-flight cap)', starts.filter(isOverloaded).length, 'count', 'none');
      rec.figure('other start errors', otherStartErrors.length, 'count');
      ctx.progress(0.4);

      const turnsAt = performance.now();
      const completed = admitted.map((thread) => outcome(client.waitFor('turn/completed', thread.id, DEADLINE_MS).then((a) => ({ result: a.params, at: a.at }))));
      const turnStarts = admitted.map((thread) => outcome(client.requestTimed('turn/start', { threadId: thread.id, input: textInput(`hello ${thread.id}`) }, DEADLINE_MS)));
      const flood = Array.from({ length: STARTS_DURING_TURNS }, () => outcome(client.requestTimed('thread/start', {}, DEADLINE_MS)));
      const ends = await Promise.all(completed);
      rec.figure('turns→all completed', performance.now() - turnsAt, 'ms');
      const failedTurns = errorsOf(await Promise.all(turnStarts)).length + ends.filter((o) => o.error !== null || o.result?.turn?.status !== 'completed').length;
      rec.figure('failed turns on admitted threads', failedTurns, 'count');
      const floodAdmitted = (await Promise.all(flood)).filter((o) => o.result !== null).length;
      rec.figure('starts admitted during turns', floodAdmitted, 'count', 'none');
      const unrecorded = admitted.filter((thread) => !recorded(thread.path, `hello ${thread.id}`)).length;
      rec.figure('turns missing from rollouts', unrecorded, 'count');

      rec.check(admitted.length > 0, 'no start was admitted');
      rec.check(otherStartErrors.length === 0, `starts failed otherwise than "host is full" or "overloaded": ${errorsOf(otherStartErrors).slice(0, 3).join('; ')}`);
      rec.check(failedTurns === 0, `${failedTurns} turns on admitted threads failed`);
      rec.check(unrecorded === 0, `${unrecorded} admitted threads' turns are not in their rollouts`);
    });
  },
};

function recorded(path: string, text: string): boolean {
  try {
    return readFileSync(path, 'utf8').includes(text);
  } catch {
    return false;
  }
}
