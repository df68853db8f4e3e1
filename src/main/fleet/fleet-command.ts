// `thread-host fleet <subcommand>`: commands about fleets of hosts on one PostgreSQL database.
// Each subcommand is imported only when used.
import { UsageError } from '../usage-error.js';

const FLEET_USAGE = `Usage: thread-host fleet <subcommand> [options]

Subcommands:
  local   Start a fleet on this machine: a throwaway PostgreSQL database and N hosts on it

Run 'thread-host fleet <subcommand> --help' for its options.`;

export async function runFleetCommand(args: string[]): Promise<number> {
  const [subcommand, ...rest] = args;
  switch (subcommand) {
    case undefined:
    case '-h':
    case '--help':
      process.stdout.write(`${FLEET_USAGE}\n`);
      return subcommand === undefined ? 2 : 0;
    case 'local':
      return (await import('./local-fleet.js')).runLocalFleetCommand(rest);
    default:
      throw new UsageError(`unknown fleet subcommand '${subcommand}'`);
  }
}
