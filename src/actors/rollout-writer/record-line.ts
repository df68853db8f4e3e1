// The envelope every rollout record shares: its time, its type and its payload, as compact
// JSON with no trailing newline (the appender adds the '\n').

/** One `event_msg` record. */
export function event(nowMs: number, payload: Record<string, unknown>): string {
  return line('event_msg', nowMs, payload);
}

/** One record of `type`, the shape of every rollout line. */
export function line(type: string, nowMs: number, payload: Record<string, unknown>): string {
  return JSON.stringify({ timestamp: iso(nowMs), type, payload });
}

/** A time as the records spell it. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}
