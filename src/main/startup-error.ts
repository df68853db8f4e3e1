// A problem that stops `app-server` before it serves: printed as `Error: <message>` with exit
// code 1, as the reference's anyhow main prints its start-up errors (a busy port, a bad auth
// flag combination, an unreadable secret, a non-loopback listener without auth).

/** Stops the process at start with the reference's message and exit code 1. */
export class StartupError extends Error {}

export { ioErrorText } from '../common/io-error-text.js';
