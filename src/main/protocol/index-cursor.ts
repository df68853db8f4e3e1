// Paging by position, as the reference pages its catalogs (model/list, experimentalFeature/list,
// mcpServerStatus/list): the cursor is the decimal index of the next item, a page's limit is
// at least one item, and a cursor past the end names the catalog in its error.
import { invalidCursor, invalidRequest } from '../../common/errors.js';

export interface IndexPage<T> {
  data: T[];
  nextCursor: string | null;
}

// Rust's usize parsing: digits with an optional leading plus sign.
const INDEX = /^\+?\d+$/;

/** The page of `items` at `cursor`; `catalog` names the items in the past-the-end error. */
export function pageByIndex<T>(items: readonly T[], cursor: string | null, limit: number | null, catalog: string): IndexPage<T> {
  const total = items.length;
  let start = 0;
  if (cursor !== null) {
    if (!INDEX.test(cursor)) throw invalidCursor(cursor);
    start = Number(cursor);
    if (start > total) throw invalidRequest(`cursor ${cursor.replace(/^\+/, '')} exceeds total ${catalog} ${total}`);
  }
  const end = limit === null ? total : Math.min(total, start + Math.max(1, limit));
  return { data: items.slice(start, end), nextCursor: end < total ? String(end) : null };
}
