// Log lines written from inside a pool worker, in the main thread's JSON-lines format and at
// its level (the worker shares the process environment). Node forwards a worker's stderr to
// the process's own, one write per line, so these lines interleave whole with the main
// thread's. Used for what only the worker sees, such as a rollout recreated after deletion.
import { createLogger, levelFromEnv, type LogFn } from '../common/log.js';

export const workerLog: LogFn = createLogger(levelFromEnv(process.env));
