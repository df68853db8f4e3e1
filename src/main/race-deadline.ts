// A deadline on a promise: every call to a worker, to the home's files and to the thread store
// has one, so the main thread never waits long on a stuck worker, filesystem or database.

/** Rejects with `message` unless `work` settles within `ms`. */
export function raceDeadline<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(message)), ms);
    timer.unref();
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
