// One page of `thread/list`, read from the rollouts under <home>/sessions, newest first by
// default, paged as the reference pages them. Runs in the stored-history worker; the main
// thread validates the request and shows loaded threads with their live status.
//
// Cursors are the reference's: `nextCursor` is "<RFC 3339 time>|<thread id>" of the page's
// last thread (creation times have whole seconds, as the reference takes them from the file
// name; update times have milliseconds), and `backwardsCursor` is the first thread's time one
// millisecond before it (descending) or after it (ascending), for paging back the other way.
import type { Stats } from 'node:fs';
import type { RolloutSummary, ThreadFilter, ThreadPage, ThreadPageQuery } from '../common/stored-history-messages.js';
import { freshHead, listedHead, regularFile, type FreshHead, type HeadUse, type ListedRollout } from './head-reads.js';
import type { ListingMemory } from './listing-memory.js';
import type { RolloutFile } from './rollout-directories.js';
import { sourceKindWanted } from '../common/rollout/session-source.js';
import { threadProviderOf } from '../common/thread-object.js';

/** A file in listing order: its sort key (ms) and, by update time, the stat that gave it. */
interface Candidate {
  file: RolloutFile;
  key: number;
  stat: Stats | null;
}

interface Row {
  listed: ListedRollout;
  /** The sort key, in ms. */
  key: number;
}

interface Page {
  /** The page as listed: its first and last rows give the cursors, whatever is shown. */
  rows: Row[];
  /** The page's rows as they read now. */
  summaries: RolloutSummary[];
  more: boolean;
  /** One of the page's files changed or went since its head was kept. */
  changed: boolean;
}

/** One page for `query`; `progress` is called for each file the listing visits. */
export function listThreadPage(memory: ListingMemory, home: string, query: ThreadPageQuery, progress: () => void = () => undefined): ThreadPage {
  const { heads } = memory;
  const { byCreation, direction, after: cursor, size, filter } = query;
  const { idWanted, headWanted } = filters(filter, query.namedModelProvider);
  const listPage = (use: HeadUse): Page => {
    // The order comes from the walk alone, as the reference's does: by creation, the time in
    // each file's name (whole seconds); by update, each file's mtime (one stat for each file
    // whose id the filter wants). Heads are
    // then read in that order only until the page and one more row are found, so a page of 25
    // in a home of thousands reads ~26 heads, not thousands.
    const ordered = byCreation
      ? inDirection(memory.rolloutFilesByNameTime(home, query.archived), direction)
      : statted(memory.rolloutFiles(home, query.archived).filter((file) => idWanted(file.threadId)), progress).sort((a, b) => direction * (a.key - b.key || compare(a.file.threadId, b.file.threadId)));
    const rows: Row[] = [];
    for (const candidate of ordered) {
      if (!isAfter(candidate, cursor, direction) || !idWanted(candidate.file.threadId)) continue;
      progress();
      const listed = listedHead(candidate.file, candidate.stat, heads, use);
      if (listed === null || !headWanted(listed.head)) continue;
      rows.push({ listed, key: candidate.key });
      if (rows.length > size) break;
    }
    const page = rows.slice(0, size);
    // A head this listing read is as fresh as reading it again would make it; a kept one is
    // read again, with its mtime.
    const fresh: FreshHead[] = page.map(({ listed }) => (listed.readNow ? { kind: 'same', head: listed.head, updatedAtMs: listed.updatedAtMs as number } : freshHead(listed.head, heads)));
    // A row is shown as it reads now, left out when gone or unreadable (EMFILE, EIO), as a
    // listing that read every head would leave it out; the cursors still come from the page
    // as listed.
    const summaries = fresh.flatMap((read) => (read.kind === 'same' || read.kind === 'changed' ? [{ ...read.head, updatedAtMs: read.updatedAtMs }] : []));
    return { rows: page, summaries, more: rows.length > size, changed: fresh.some((read) => read.kind === 'changed' || read.kind === 'gone') };
  };
  // By creation time a head kept whole is trusted without a stat; by update time every file is
  // stat'ed anyway, and a kept head is used while its file is as it was; a search of previews
  // reads every head it visits (one rewritten in place shows in no stat). The page's kept heads
  // are then read again from the disk (with their mtimes); a page file found changed or gone
  // since its head was kept sends the listing round again, once, with the new heads (what
  // changes again within one request is shown as it reads then).
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
    // From the thread's own time (creation in milliseconds, from its session_meta), while
    // pages compare the names' whole seconds: paging back may not include the anchor again,
    // as with the reference.
    backwardsCursor: first === undefined ? null : timestamp((byCreation ? first.listed.head.createdAtMs : first.key) + direction, 'fixedMillis'),
  };
}

/** Files kept in creation order (ListingMemory), as candidates in `direction`, made as visited. */
function* inDirection(files: readonly RolloutFile[], direction: 1 | -1): Iterable<Candidate> {
  for (let i = direction === 1 ? 0 : files.length - 1; i >= 0 && i < files.length; i += direction) {
    const file = files[i] as RolloutFile;
    yield { file, key: file.nameTimeMs, stat: null };
  }
}

/** Each file with its mtime as the key; a file gone since the walk is left out. */
function statted(files: readonly RolloutFile[], progress: () => void): Candidate[] {
  return files.flatMap((file) => {
    progress();
    let stat: Stats | undefined;
    try {
      stat = regularFile(file.path);
    } catch {
      return []; // unreadable (EACCES, EIO): as a listing that cannot read its head
    }
    return stat === undefined ? [] : [{ file, key: Math.floor(stat.mtimeMs), stat }];
  });
}

/** Whether `candidate` comes strictly after the cursor in `direction` (ties on time go by id). */
function isAfter({ key, file }: Candidate, cursor: ThreadPageQuery['after'], direction: 1 | -1): boolean {
  if (cursor === null) return true;
  return direction * (key - cursor.at) > 0 || (key === cursor.at && cursor.id !== null && direction * compare(file.threadId, cursor.id) > 0);
}

/** A filter's two halves: the ids, checked on a file's name before its head is read, and the rest. */
export function filters(filter: ThreadFilter, namedModelProvider: string | null): { idWanted: (threadId: string) => boolean; headWanted: (head: Omit<RolloutSummary, 'updatedAtMs'>) => boolean } {
  const included = filter.includedIds === null ? null : new Set(filter.includedIds);
  const excluded = new Set(filter.excludedIds);
  const sources = new Set(filter.sources);
  // As the reference filters: no list means the threads of config.toml's provider, an empty one
  // every provider's, and a rollout that names none counts as the default's (one naming "" does
  // not). Where config.toml names no provider, thread-host's own default is its embedded model,
  // not the reference's `openai`: filtering by either would hide the other's threads, so no
  // list then means every provider's.
  const providers =
    filter.modelProviders === null ? (namedModelProvider === null ? null : new Set([namedModelProvider])) : filter.modelProviders.length > 0 ? new Set(filter.modelProviders) : null;
  const unrecordedProvider = threadProviderOf(null, namedModelProvider);
  return {
    idWanted: (threadId) => (included === null || included.has(threadId)) && !excluded.has(threadId),
    headWanted: (head) => {
      // The reference lists no thread without a preview: none whose first user message is not
      // on disk yet, or is only whitespace.
      if (head.preview === '') return false;
      if (!sourceKindWanted(head.sourceKind, sources)) return false;
      if (providers !== null && !providers.has(head.modelProvider ?? unrecordedProvider)) return false;
      if (filter.cwds !== null && !filter.cwds.includes(head.cwd)) return false;
      return !filter.searchTerm || head.preview.includes(filter.searchTerm);
    },
  };
}

/** RFC 3339 in UTC, as chrono writes it: whole seconds, trimmed milliseconds, or always three digits. */
export function timestamp(ms: number, precision: 'seconds' | 'millis' | 'fixedMillis'): string {
  const iso = new Date(ms).toISOString();
  if (precision === 'fixedMillis') return iso;
  const whole = iso.slice(0, 19);
  const fraction = iso.slice(20, 23).replace(/0+$/, '');
  return precision === 'seconds' || fraction === '' ? `${whole}Z` : `${whole}.${fraction}Z`;
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
