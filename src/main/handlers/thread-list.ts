// `thread/list`: materialized threads from the rollouts under sessions/, newest first by
// default, paged as the reference pages them. Loaded threads show their live status.
//
// Cursors are the reference's: `nextCursor` is "<RFC 3339 time>|<thread id>" of the page's
// last thread (creation times have whole seconds, as the reference takes them from the file
// name; update times have milliseconds), and `backwardsCursor` is the first thread's time one
// millisecond before it (descending) or after it (ascending), for paging back the other way.
import type { RolloutHead } from '../history/rollout-heads.js';
import type { RolloutSummary } from '../history/rollout-locator.js';
import { freshHeads, listRolloutHeads, type HeadUse, type ListedRollout } from '../history/rollout-locator.js';
import type { Connection } from '../connections.js';
import { invalidCursor, invalidParams, invalidRequest } from '../errors.js';
import type { HostContext } from '../host-context.js';
import type { threadListParams } from '../protocol/method-params.js';
import { loadedThreadView, storedThreadView } from '../protocol/thread-view.js';
import { parseUuid } from '../protocol/uuid.js';
import { pageSize } from '../threads/history-pages.js';

type Params = ReturnType<typeof threadListParams>;

const INTERACTIVE_SOURCES = new Set(['vscode', 'cli', 'exec', 'appServer']);
const MAX_ID_FILTER = 100;

interface Row {
  listed: ListedRollout;
  /** The sort key, in ms. */
  key: number;
}

interface Page {
  /** The page as listed: its first and last rows give the cursors, whatever is shown. */
  rows: Row[];
  /** The page's rows as read again from the disk. */
  summaries: RolloutSummary[];
  more: boolean;
  /** One of the page's files changed or went since its head was kept. */
  changed: boolean;
}

export async function threadList(ctx: HostContext, _connection: Connection, params: Params): Promise<unknown> {
  const included = idFilter(params.includedThreadIds, 'included');
  const excluded = idFilter(params.excludedThreadIds, 'excluded');
  if (params.originators !== null && params.originators.length > 0) throw invalidParams('originator filtering is not supported by the local app-server');
  if (params.sortKey === 'section_position') throw invalidRequest('section-position sorting requires a section filter');
  const byCreation = params.sortKey === null || params.sortKey === 'created_at';
  const direction = params.sortDirection === 'asc' ? 1 : -1;
  const cursor = params.cursor === null ? null : parseCursor(params.cursor);

  const size = pageSize(params.limit);
  const listPage = async (use: HeadUse): Promise<Page> => {
    const rows: Row[] = (await listRolloutHeads(ctx.home, ctx.rolloutHeads, use))
      .filter((listed) => matches(listed.head, params, included, excluded))
      .map((listed) => ({ listed, key: byCreation ? Math.floor(listed.head.createdAtMs / 1000) * 1000 : (listed.updatedAtMs as number) }))
      .sort((a, b) => direction * (a.key - b.key || compare(a.listed.head.threadId, b.listed.head.threadId)));
    const after = cursor === null ? rows : rows.filter((row) => direction * (row.key - cursor.at) > 0 || (row.key === cursor.at && cursor.id !== null && direction * compare(row.listed.head.threadId, cursor.id) > 0));
    const page = after.slice(0, size);
    const fresh = await freshHeads(page.map(({ listed }) => listed.head), ctx.rolloutHeads);
    // A row is shown as it reads now, left out when gone or unreadable (EMFILE, EIO), as a
    // listing that read every head would leave it out; the cursors still come from the page
    // as listed.
    const summaries = fresh.flatMap((read) => (read.kind === 'same' || read.kind === 'changed' ? [{ ...read.head, updatedAtMs: read.updatedAtMs }] : []));
    return { rows: page, summaries, more: after.length > size, changed: fresh.some((read) => read.kind === 'changed' || read.kind === 'gone') };
  };
  // By creation time only the files whose heads are not whole are stat'ed while listing; by
  // update time every file is; a search of previews reads every head (one rewritten in place
  // shows in no stat, and the preview is the one field of a head such a rewrite changes). Every
  // page is then read again from the disk (its mtimes, and heads as they are now); a page file
  // found changed or gone since its head was kept sends the listing round again, once, with the
  // new heads (what changes again within one request is shown as it reads then).
  const use: HeadUse = params.searchTerm ? 'readAgain' : byCreation ? 'trustWhole' : 'validate';
  let page = await listPage(use);
  if (page.changed) page = await listPage(use === 'readAgain' ? use : 'validate');
  // The cursors come from the page as listed, so rows left out of it are passed over, never
  // taken for the end of the list.
  const first = page.rows[0];
  const last = page.rows[page.rows.length - 1];
  return {
    data: page.summaries.map((summary) => view(ctx, summary)),
    nextCursor: last !== undefined && page.more ? `${timestamp(last.key, byCreation ? 'seconds' : 'millis')}|${last.listed.head.threadId}` : null,
    // From the thread's own time (creation in milliseconds), while pages compare whole seconds:
    // paging back may not include the anchor again, as with the reference.
    backwardsCursor: first === undefined ? null : timestamp((byCreation ? first.listed.head.createdAtMs : first.key) + direction, 'fixedMillis'),
  };
}

/** A thread id list filter: at most 100 ids, each a UUID; null means no filter. */
function idFilter(ids: string[] | null, kind: 'included' | 'excluded'): Set<string> | null {
  if (ids === null) return null;
  if (ids.length > MAX_ID_FILTER) throw invalidParams(`${kind}ThreadIds accepts at most ${MAX_ID_FILTER} entries`);
  const set = new Set<string>();
  for (const id of ids) {
    const parsed = parseUuid(id);
    if (!parsed.ok) throw invalidParams(`invalid ${kind} thread id: ${parsed.error}`);
    set.add(parsed.value);
  }
  return set;
}

function matches(summary: RolloutHead, params: Params, included: Set<string> | null, excluded: Set<string> | null): boolean {
  // thread-host archives nothing, so only the non-archived listing has rows.
  if (params.archived === true) return false;
  if (included !== null && !included.has(summary.threadId)) return false;
  if (excluded?.has(summary.threadId)) return false;
  const sources = params.sourceKinds && params.sourceKinds.length > 0 ? new Set(params.sourceKinds) : INTERACTIVE_SOURCES;
  if (!sources.has(summary.source)) return false;
  if (params.modelProviders && params.modelProviders.length > 0 && !params.modelProviders.includes(summary.modelProvider)) return false;
  if (params.cwd && !params.cwd.includes(summary.cwd)) return false;
  return !params.searchTerm || summary.preview.includes(params.searchTerm);
}

function view(ctx: HostContext, summary: RolloutSummary): unknown {
  const loaded = ctx.directory.get(summary.threadId);
  if (loaded && loaded.identity && (loaded.lifecycle.kind === 'loaded' || loaded.lifecycle.kind === 'unloading')) {
    return loadedThreadView(loaded, null);
  }
  return storedThreadView(
    {
      id: summary.threadId,
      preview: summary.preview,
      modelProvider: summary.modelProvider,
      model: summary.model,
      createdAtMs: summary.createdAtMs,
      updatedAtMs: summary.updatedAtMs,
      path: summary.path,
      cwd: summary.cwd,
      cliVersion: summary.cliVersion,
      originator: summary.originator,
      source: summary.source,
      historyMode: summary.historyMode,
      turns: [],
    },
    false,
  );
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

/** RFC 3339 in UTC, as chrono writes it: whole seconds, trimmed milliseconds, or always three digits. */
function timestamp(ms: number, precision: 'seconds' | 'millis' | 'fixedMillis'): string {
  const iso = new Date(ms).toISOString();
  if (precision === 'fixedMillis') return iso;
  const whole = iso.slice(0, 19);
  const fraction = iso.slice(20, 23).replace(/0+$/, '');
  return precision === 'seconds' || fraction === '' ? `${whole}Z` : `${whole}.${fraction}Z`;
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

