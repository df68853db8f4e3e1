// A command-line usage problem: the CLI prints it with a pointer to --help and exits 2.

/** A usage problem: message on stderr, exit code 2. */
export class UsageError extends Error {}
