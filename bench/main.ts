// Entry of `thread-host bench`: the CLI runs this file as a child process, so the host's own
// code never imports the bench (the bench drives the host from outside, not the reverse).
import { runBenchCommand } from './bench-command.js';

process.exitCode = await runBenchCommand(process.argv.slice(2));
