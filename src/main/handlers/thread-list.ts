// `thread/list`: materialized threads from the rollouts under sessions/, newest first by
// default, paged as the reference pages them (src/stored-reads/thread-page.ts, in the
// stored-history worker). Here the request is checked, with the reference's errors, and the
// page is shown: loaded threads with their live status.
import { namedModelProvider } from '../config/host-config.js';
import type { RolloutSummary, ThreadPageQuery } from '../../common/stored-history-messages.js';
import type { Connection } from '../connections.js';
import { invalidCursor, invalidParams, invalidRequest } from '../../common/errors.js';
import type { HostContext } from '../host-context.js';
import type { threadListParams } from '../protocol/method-params.js';
import { storedThreadView } from '../../common/thread-object.js';
import { loadedThreadView } from '../protocol/thread-view.js';
import { withThreadFacts } from './shown-thread.js';
import { parseUuid } from '../protocol/uuid.js';
import { pageSize } from '../../common/rollout/history-pages.js';
import { INTERACTIVE_SOURCE_KINDS } from '../../common/rollout/session-source.js';
import { threadIdOf } from '../../common/thread-id.js';

type Params = ReturnType<typeof threadListParams>;

const MAX_ID_FILTER = 100;

export async function threadList(ctx: HostContext, _connection: Connection, params: Params): Promise<unknown> {
  const includedIds = idFilter(params.includedThreadIds, 'included');
  const excludedIds = idFilter(params.excludedThreadIds, 'excluded');
  if (params.originators !== null && params.originators.length > 0) throw invalidParams('originator filtering is not supported by the local app-server');
  if (params.sortKey === 'section_position' && params.sectionId === null) throw invalidRequest('section-position sorting requires a section filter');
  const after = params.cursor === null ? null : parseCursor(params.cursor);
  // Pages known to be empty are answered here, not by walking every rollout: thread-host
  // keeps no sections (the interactive client asks for its "Pinned" one at start), and an
  // empty id list includes nothing.
  if (params.sectionId !== null || includedIds?.length === 0) return { data: [], readStates: {}, nextCursor: null, backwardsCursor: null };
  const query: ThreadPageQuery = {
    source: ctx.store.threads.listing,
    archived: params.archived === true,
    filter: {
      includedIds,
      excludedIds,
      sources: params.sourceKinds && params.sourceKinds.length > 0 ? params.sourceKinds : INTERACTIVE_SOURCE_KINDS,
      modelProviders: params.modelProviders,
      cwds: params.cwd,
      searchTerm: params.searchTerm,
    },
    namedModelProvider: namedModelProvider(ctx.configDocument),
    byCreation: params.sortKey === null || params.sortKey === 'created_at',
    direction: params.sortDirection === 'asc' ? 1 : -1,
    after,
    size: pageSize(params.limit),
  };
  const page = await ctx.storedHistory.listPage(query);
  // The PostgreSQL store's rows hold what every host set of each thread: this host learns it first.
  for (const summary of page.summaries) ctx.store.threads.learnListed(summary);
  // Every listed thread is materialized: each has a read state (thread-read-states.ts).
  const readStates = Object.fromEntries(page.summaries.map((summary) => [summary.threadId, ctx.store.readStates.get(threadIdOf(summary.threadId))]));
  return { data: page.summaries.map((summary) => view(ctx, summary, query.namedModelProvider)), readStates, nextCursor: page.nextCursor, backwardsCursor: page.backwardsCursor };
}

/** A thread id list filter: at most 100 ids, each a UUID; null means no filter. */
function idFilter(ids: string[] | null, kind: 'included' | 'excluded'): string[] | null {
  if (ids === null) return null;
  if (ids.length > MAX_ID_FILTER) throw invalidParams(`${kind}ThreadIds accepts at most ${MAX_ID_FILTER} entries`);
  return ids.map((id) => {
    const parsed = parseUuid(id);
    if (!parsed.ok) throw invalidParams(`invalid ${kind} thread id: ${parsed.error}`);
    return parsed.value;
  });
}

function view(ctx: HostContext, summary: RolloutSummary, namedProvider: string | null): unknown {
  const loaded = ctx.directory.get(summary.threadId);
  // A listing names no fork's source, loaded or not, as the reference's does not.
  const shown = loaded?.readsFromTranscript ? { ...withThreadFacts(ctx, loadedThreadView(loaded, null)), forkedFromId: null } : withThreadFacts(ctx, storedThreadView(summary, [], namedProvider));
  // The store's name is the one every host of a fleet set last, newer than this host's memory of it.
  if (summary.storedName != null) shown.name = summary.storedName;
  return shown;
}

/** "<time>" or "<time>|<thread id>"; anything else is `invalid cursor: <cursor>`. */
function parseCursor(cursor: string): { at: number; id: string | null } {
  const bar = cursor.indexOf('|');
  const time = bar < 0 ? cursor : cursor.slice(0, bar);
  const at = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(time) ? Date.parse(time) : Number.NaN;
  if (Number.isNaN(at)) throw invalidCursor(cursor);
  if (bar < 0) return { at, id: null };
  const id = parseUuid(cursor.slice(bar + 1));
  if (!id.ok) throw invalidCursor(cursor);
  return { at, id: id.value };
}
