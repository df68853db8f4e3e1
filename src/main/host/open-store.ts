// The one place a host chooses its store, from thread_store in config.toml: the home's files
// (the default, shared with the reference) or a PostgreSQL database shared by a fleet. Every
// other part of the host asks the ThreadStore it opened (src/main/store/thread-store.ts).
import type { LogFn } from '../../common/log.js';
import { NO_PEERS, type FleetPeers } from '../fleet/fleet-peers.js';
import type { HostRecorder } from '../metrics/host-recorder.js';
import { openFilesStore } from '../store/files/open-files-store.js';
import type { StoreHooks } from '../store/store-hooks.js';
import type { ThreadStore } from '../store/thread-store.js';
import type { ListenTarget } from '../transport/listen-url.js';
import type { StartupConfig } from './startup-config.js';

export interface OpenedStore {
  store: ThreadStore;
  /** The other hosts sharing the store; NO_PEERS for a store no other host shares. */
  peers: FleetPeers;
}

export interface OpenStoreOptions {
  home: string;
  env: NodeJS.ProcessEnv;
  startup: StartupConfig;
  listen: ListenTarget;
  log: LogFn;
  recorder: HostRecorder;
  hooks: StoreHooks;
}

/** Opens the configured store before the host is built: a store it cannot use stops the start. */
export async function openStore(options: OpenStoreOptions): Promise<OpenedStore> {
  const { startup } = options;
  if (startup.threadStore.kind === 'postgres') {
    const { openPostgresStore } = await import('../store/postgres/open-postgres-store.js');
    return openPostgresStore(startup.threadStore, options.listen, options.log, options.hooks);
  }
  return { store: await openFilesStore(options), peers: NO_PEERS };
}
