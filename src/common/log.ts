// Structured logging: one JSON object per line on stderr, so a failure can be traced by
// thread id. The level comes from THREAD_HOST_LOG, else RUST_LOG (harnesses written for the
// reference set RUST_LOG=warn); only its leading level word is used ("info", "warn", …).

export type LogLevel = 'error' | 'warn' | 'info' | 'debug';
export type LogFn = (level: LogLevel, message: string, fields?: Record<string, unknown>) => void;

const RANK: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3 };

export function levelFromEnv(env: NodeJS.ProcessEnv): LogLevel {
  const spec = (env.THREAD_HOST_LOG ?? env.RUST_LOG ?? 'warn').toLowerCase();
  // A RUST_LOG filter such as "codex=debug,warn": take the first bare level, else warn.
  for (const part of spec.split(',')) {
    const bare = part.includes('=') ? part.split('=')[1]! : part;
    if (bare === 'trace') return 'debug';
    if (bare in RANK) return bare as LogLevel;
  }
  return 'warn';
}

export function createLogger(level: LogLevel, write: (line: string) => void = (line) => process.stderr.write(line)): LogFn {
  const limit = RANK[level];
  return (lineLevel, message, fields) => {
    if (RANK[lineLevel] > limit) return;
    write(JSON.stringify({ ts: new Date().toISOString(), level: lineLevel, msg: message, ...fields }) + '\n');
  };
}
