// The reference's texts for what cannot be done to a running process. Their own module, so
// command/exec's sessions (loaded on the start path) can match them without loading the
// process runners, and with them child_process and perf_hooks, before the first reply.

/** A write to a stdin already closed. */
export const STDIN_CLOSED = 'stdin is already closed';
/** A resize of a command on pipes. */
export const NOT_A_TERMINAL = 'process is not attached to a PTY';
