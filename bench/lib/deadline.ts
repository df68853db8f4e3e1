// Every wait in the bench is bounded: a benchmark that hangs measures nothing and leaves
// servers behind. `withDeadline` turns a stuck promise into a labelled error.

/** A wait that ran past its deadline; the label says which one. */
export class DeadlineError extends Error {}

/** Resolves or rejects with `promise`, or rejects with DeadlineError after `ms`. */
export function withDeadline<T>(promise: Promise<T>, ms: number, label: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new DeadlineError(`${label}: no answer within ${ms} ms`)), ms);
    promise.then(
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
