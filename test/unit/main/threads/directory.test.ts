import { describe, expect, test } from 'vitest';
import { ThreadDirectory } from '../../../../src/main/threads/directory.js';
import type { ConnectionId } from '../../../../src/main/connections.js';
import { LoadedThread } from '../../../../src/main/threads/loaded-thread.js';
import type { ThreadId } from '../../../../src/common/thread-id.js';

// Real UUIDv7-shaped ids, named for their sort order: A < B < C < D < E.
const A = '019a0000-0000-7000-8000-00000000000a' as ThreadId;
const B = '019a0000-0000-7000-8000-00000000000b' as ThreadId;
const C = '019a0000-0000-7000-8000-00000000000c' as ThreadId;
const D = '019a0000-0000-7000-8000-00000000000d' as ThreadId;
const E = '019a0000-0000-7000-8000-00000000000e' as ThreadId;
// Sorts before A and after E; never registered.
const BEFORE_ALL = '019a0000-0000-7000-8000-000000000000' as ThreadId;
const AFTER_ALL = '019a0000-0000-7000-8000-00000000000f' as ThreadId;

const connection = (n: number) => n as ConnectionId;

/** A directory holding `ids` registered and listed, inserted in the given (unsorted) order. */
function directoryWith(...ids: ThreadId[]) {
  const directory = new ThreadDirectory();
  const threads = new Map<string, LoadedThread>();
  for (const id of ids) {
    const thread = new LoadedThread(id, 0);
    directory.register(thread);
    directory.list(thread);
    threads.set(id, thread);
  }
  return { directory, threads };
}

describe('ThreadDirectory.page follows thread/loaded/list (protocol §6)', () => {
  // Inserted out of order: the listing must still be sorted as strings.
  const { directory } = directoryWith(C, A, E, B, D);

  test.each([
    { name: 'no cursor and no limit returns every id sorted', cursor: null, limit: null, page: { data: [A, B, C, D, E], nextCursor: null } },
    { name: 'limit 1 returns the first id and it as the cursor', cursor: null, limit: 1, page: { data: [A], nextCursor: A } },
    { name: 'limit 0 behaves as 1', cursor: null, limit: 0, page: { data: [A], nextCursor: A } },
    { name: 'limit 2 returns two ids and the last as the cursor', cursor: null, limit: 2, page: { data: [A, B], nextCursor: B } },
    { name: 'the cursor is exclusive', cursor: B, limit: 2, page: { data: [C, D], nextCursor: D } },
    { name: 'the last page has no next cursor', cursor: D, limit: 2, page: { data: [E], nextCursor: null } },
    { name: 'a page that ends exactly at the last id has no next cursor', cursor: C, limit: 2, page: { data: [D, E], nextCursor: null } },
    { name: 'a limit equal to the count has no next cursor', cursor: null, limit: 5, page: { data: [A, B, C, D, E], nextCursor: null } },
    { name: 'a limit larger than the count has no next cursor', cursor: null, limit: 4_294_967_295, page: { data: [A, B, C, D, E], nextCursor: null } },
    { name: 'a cursor at the last id gives an empty page', cursor: E, limit: null, page: { data: [], nextCursor: null } },
    { name: 'a cursor with no limit returns everything after it', cursor: A, limit: null, page: { data: [B, C, D, E], nextCursor: null } },
    { name: 'a cursor sorting before every id starts at the first', cursor: BEFORE_ALL, limit: 1, page: { data: [A], nextCursor: A } },
    { name: 'a cursor sorting after every id gives an empty page', cursor: AFTER_ALL, limit: 1, page: { data: [], nextCursor: null } },
  ])('$name', ({ cursor, limit, page }) => {
    expect(directory.page(cursor, limit)).toEqual(page);
  });

  test('a cursor that is no longer loaded starts at its sorted insertion point', () => {
    const { directory, threads } = directoryWith(A, B, C, D);
    expect(directory.page(null, 2)).toEqual({ data: [A, B], nextCursor: B });
    expect(directory.remove(threads.get(B)!)).toEqual(true);
    expect(directory.page(B, 2)).toEqual({ data: [C, D], nextCursor: null });
    expect(directory.page(B, 1)).toEqual({ data: [C], nextCursor: C });
  });

  test('walking the pages with limit 2 visits every id once', () => {
    const { directory } = directoryWith(E, D, C, B, A);
    const pages = [];
    let cursor: string | null = null;
    do {
      const page = directory.page(cursor, 2);
      pages.push(page);
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(pages).toEqual([
      { data: [A, B], nextCursor: B },
      { data: [C, D], nextCursor: D },
      { data: [E], nextCursor: null },
    ]);
  });

  test('an empty directory gives an empty page whatever the cursor', () => {
    const directory = new ThreadDirectory();
    expect([directory.page(null, null), directory.page(A, 0), directory.page('not-a-uuid', 10)]).toEqual([
      { data: [], nextCursor: null },
      { data: [], nextCursor: null },
      { data: [], nextCursor: null },
    ]);
  });

  test('a registered thread appears in the listing only once it is listed, and listing twice adds it once', () => {
    const directory = new ThreadDirectory();
    const thread = new LoadedThread(A, 0);
    directory.register(thread);
    expect({ page: directory.page(null, null), loadedCount: directory.loadedCount }).toEqual({
      page: { data: [], nextCursor: null },
      loadedCount: 0,
    });
    directory.list(thread);
    directory.list(thread);
    expect({ page: directory.page(null, null), loadedCount: directory.loadedCount }).toEqual({
      page: { data: [A], nextCursor: null },
      loadedCount: 1,
    });
  });
});

describe('ThreadDirectory registration', () => {
  test('register makes the instance findable by id; a second instance for the same id is refused', () => {
    const directory = new ThreadDirectory();
    const first = new LoadedThread(A, 0);
    directory.register(first);
    expect(directory.get(A)).toBe(first);
    expect(() => directory.register(new LoadedThread(A, 0))).toThrow(new Error(`thread ${A} is already registered`));
    expect(directory.get(A)).toBe(first);
    expect(directory.get(B)).toEqual(undefined);
  });

  test('remove deletes its own instance from the map and the listing and says so', () => {
    const { directory, threads } = directoryWith(A, B);
    expect(directory.remove(threads.get(A)!)).toEqual(true);
    expect({ a: directory.get(A), ids: directory.all().map((t) => t.id), page: directory.page(null, null), loadedCount: directory.loadedCount }).toEqual({
      a: undefined,
      ids: [B],
      page: { data: [B], nextCursor: null },
      loadedCount: 1,
    });
  });

  test('a stale instance cannot remove the newer incarnation registered under its id', () => {
    const { directory, threads } = directoryWith(A);
    const old = threads.get(A)!;
    expect(directory.remove(old)).toEqual(true);
    const newer = new LoadedThread(A, 5);
    directory.register(newer);
    directory.list(newer);
    // A late unload of the old incarnation must not evict the new one.
    expect(directory.remove(old)).toEqual(false);
    expect({ same: directory.get(A) === newer, page: directory.page(null, null) }).toEqual({
      same: true,
      page: { data: [A], nextCursor: null },
    });
    expect(newer.generation).not.toEqual(old.generation);
  });

  test('removing a thread that was never registered is a no-op returning false', () => {
    const { directory } = directoryWith(A);
    expect(directory.remove(new LoadedThread(B, 0))).toEqual(false);
    expect(directory.page(null, null)).toEqual({ data: [A], nextCursor: null });
  });

  test('a registered but unlisted thread is removed cleanly', () => {
    const directory = new ThreadDirectory();
    const thread = new LoadedThread(A, 0);
    directory.register(thread);
    expect(directory.remove(thread)).toEqual(true);
    expect({ all: directory.all(), loadedCount: directory.loadedCount }).toEqual({ all: [], loadedCount: 0 });
  });

  test('all returns every registered thread, listed or not, in registration order', () => {
    const directory = new ThreadDirectory();
    const b = new LoadedThread(B, 0);
    const a = new LoadedThread(A, 0);
    directory.register(b);
    directory.register(a);
    directory.list(a);
    expect(directory.all().map((thread) => thread.id)).toEqual([B, A]);
  });
});

describe('ThreadDirectory.subscribedBy', () => {
  test('returns exactly the threads a connection subscribes to', () => {
    const { directory, threads } = directoryWith(A, B, C);
    threads.get(A)!.subscribe(connection(1));
    threads.get(C)!.subscribe(connection(1));
    threads.get(B)!.subscribe(connection(2));
    threads.get(C)!.subscribe(connection(2));
    expect({
      one: directory.subscribedBy(connection(1)).map((thread) => thread.id),
      two: directory.subscribedBy(connection(2)).map((thread) => thread.id),
      three: directory.subscribedBy(connection(3)).map((thread) => thread.id),
    }).toEqual({ one: [A, C], two: [B, C], three: [] });
  });

  test('forgets a thread once the connection unsubscribes or the thread is removed', () => {
    const { directory, threads } = directoryWith(A, B);
    threads.get(A)!.subscribe(connection(1));
    threads.get(B)!.subscribe(connection(1));
    threads.get(A)!.unsubscribe(connection(1), 10);
    directory.remove(threads.get(B)!);
    expect(directory.subscribedBy(connection(1))).toEqual([]);
  });
});

describe('ThreadDirectory.fullPage', () => {
  test('is the unpaged page serialized, and follows every change of the list', () => {
    const { directory, threads } = directoryWith(B, A);
    expect(directory.fullPage().text).toBe(JSON.stringify({ data: [A, B], nextCursor: null }));
    // The same text while nothing changed (served from the cache).
    expect(directory.fullPage()).toBe(directory.fullPage());
    const c = new LoadedThread(C, 0);
    directory.register(c);
    directory.list(c);
    expect(directory.fullPage().text).toBe(JSON.stringify({ data: [A, B, C], nextCursor: null }));
    directory.remove(threads.get(A)!);
    expect(directory.fullPage().text).toBe(JSON.stringify({ data: [B, C], nextCursor: null }));
    // Listing a listed thread again changes nothing.
    directory.list(c);
    expect(directory.fullPage().text).toBe(JSON.stringify({ data: [B, C], nextCursor: null }));
  });
});
