// One page of `thread/list`, read from the rollouts under <home>/sessions, newest first by
// default, paged as the reference pages them. Runs in the stored-history worker; the main
// thread validates the request and shows loaded threads with their live status.
//
// Cursors are the reference's: `nextCursor` is "<RFC 3339 time>|<thread id>" of the page's
// last thread (creation times have whole seconds, as the reference takes them from the file
// name; update times have milliseconds), and `backwardsCursor` is the first thread's time one
// millisecond before it (descending) or after it (ascending), for paging back the other way.
import type { RolloutSummary, ThreadFilter, ThreadPage, ThreadPageQuery } from '../common/stored-history-messages.js';
import { freshHeads, listRolloutHeads, type FreshHead, type HeadUse, type ListedRollout } from './head-reads.js';
import type { RolloutHead, RolloutHeads } from './rollout-heads.js';

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

/** One page for `query`; `progress` is called as the listing goes (see listRolloutHeads). */
export function listThreadPage(heads: RolloutHeads, query: ThreadPageQuery, progress?: () => void): ThreadPage {
  const { byCreation, direction, after: cursor, size, filter } = query;
  const matches = matcher(filter);
  const listPage = (use: HeadUse): Page => {
    const rows: Row[] = listRolloutHeads(query.home, heads, use, progress)
      .filter((listed) => matches(listed.head))
      .map((listed) => ({ listed, key: byCreation ? Math.floor(listed.head.createdAtMs / 1000) * 1000 : (listed.updatedAtMs as number) }))
      .sort((a, b) => direction * (a.key - b.key || compare(a.listed.head.threadId, b.listed.head.threadId)));
    const after = cursor === null ? rows : rows.filter((row) => direction * (row.key - cursor.at) > 0 || (row.key === cursor.at && cursor.id !== null && direction * compare(row.listed.head.threadId, cursor.id) > 0));
    const page = after.slice(0, size);
    // Heads this listing has just read (a search reads them all) are as fresh as reading again would make them.
    const fresh: FreshHead[] =
      use === 'readAgain' ? page.map(({ listed }) => ({ kind: 'same', head: listed.head, updatedAtMs: listed.updatedAtMs as number })) : freshHeads(page.map(({ listed }) => listed.head), heads);
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
  const use: HeadUse = filter.searchTerm ? 'readAgain' : byCreation ? 'trustWhole' : 'validate';
  let page = listPage(use);
  if (page.changed) page = listPage(use === 'readAgain' ? use : 'validate');
  // The cursors come from the page as listed, so rows left out of it are passed over, never
  // taken for the end of the list.
  const first = page.rows[0];
  const last = page.rows[page.rows.length - 1];
  return {
    kind: 'page',
    summaries: page.summaries,
    nextCursor: last !== undefined && page.more ? `${timestamp(last.key, byCreation ? 'seconds' : 'millis')}|${last.listed.head.threadId}` : null,
    // From the thread's own time (creation in milliseconds), while pages compare whole seconds:
    // paging back may not include the anchor again, as with the reference.
    backwardsCursor: first === undefined ? null : timestamp((byCreation ? first.listed.head.createdAtMs : first.key) + direction, 'fixedMillis'),
  };
}

function matcher(filter: ThreadFilter): (head: RolloutHead) => boolean {
  const included = filter.includedIds === null ? null : new Set(filter.includedIds);
  const excluded = new Set(filter.excludedIds);
  const sources = new Set(filter.sources);
  const providers = filter.modelProviders !== null && filter.modelProviders.length > 0 ? new Set(filter.modelProviders) : null;
  return (head) => {
    if (included !== null && !included.has(head.threadId)) return false;
    if (excluded.has(head.threadId)) return false;
    if (!sources.has(head.source)) return false;
    if (providers !== null && !providers.has(head.modelProvider)) return false;
    if (filter.cwds !== null && !filter.cwds.includes(head.cwd)) return false;
    return !filter.searchTerm || head.preview.includes(filter.searchTerm);
  };
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
