// vitest globalSetup: one throwaway PostgreSQL cluster for the whole run
// (test/helpers/postgres-cluster.ts); test files reach it through test/helpers/test-database.ts.
import type { TestProject } from 'vitest/node';
import { startPostgresCluster } from './postgres-cluster.js';

export default function setup(project: TestProject): () => void {
  const cluster = startPostgresCluster();
  project.provide('postgresSocketDir', cluster.socketDir);
  return () => cluster.stop();
}
