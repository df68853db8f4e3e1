// Async work over many items with a bound on how much runs at once: a fixed set of lanes
// pulling from one index, so a listing of thousands of files never has thousands of reads (and
// file descriptors) in flight.

/** `work` over `items` with at most `limit` running at once; results in the items' order. */
export async function mapLimited<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}
