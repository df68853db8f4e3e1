// The size a terminal opens with unless command/exec names one. Its own module, so the request
// decoding on the start path can name it without loading the terminal runner (and with it
// child_process and perf_hooks) before the first reply.
import type { TerminalSize } from './running-command.js';

/** The reference's default terminal (`TerminalSize::default()`). */
export const DEFAULT_TERMINAL_SIZE: TerminalSize = { rows: 24, cols: 80 };
