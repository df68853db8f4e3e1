// The tests' throwaway PostgreSQL clusters are the build's own (src/main/commands/fleet/throwaway-cluster.ts):
// vitest's globalSetup starts one per run (test/helpers/postgres-global-setup.ts) and each test
// file gets a database of its own there (test/helpers/test-database.ts); a test that restarts
// its database starts a cluster of its own.
export { clusterUrl, postgresBinDir, startPostgresCluster, SUPERUSER, type PostgresCluster } from '../../src/main/commands/fleet/throwaway-cluster.js';
