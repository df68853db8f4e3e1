// The MCP servers of each loaded thread, on the host's one hub (mcp/mcp-hub.ts): a thread's
// configured servers are noted when it loads, leased on the hub when a turn first lists their
// tools or a config/mcpServer/reload starts them (the session starts then), and given back when
// it unloads, so threads with the same launch share one session (one process) and a server no
// loaded thread uses stops. Their tools are offered under the reference's names (a namespace
// `mcp__<server>` per server). The hub, and the SDK behind it, is loaded on first use only
// (mcp/mcp-runtime.ts).
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { LogFn } from '../../common/log.js';
import type { McpHub, McpLease, McpStartupEvent } from './mcp/mcp-hub.js';
import type { LaunchIdentity } from './mcp/mcp-launch.js';
import type { McpServerConfig } from './mcp/mcp-server-config.js';
import type { McpServerStatus } from './mcp/server-status.js';

/** The tool a model's call names, with the server's settings for it. */
export interface McpToolTarget {
  /** The hub the lease is on (loaded once a lease exists). */
  hub: McpHub;
  lease: McpLease;
  server: McpServerConfig;
  tool: Tool;
}

interface ThreadServer {
  config: McpServerConfig;
  lease: McpLease | null;
}

interface ThreadServers {
  servers: Map<string, ThreadServer>;
  /** The tools each server listed when the thread's turn last asked, by server name. */
  tools: Map<string, Tool[]>;
  /** `server/tool` keys the client approved for the rest of the thread's life here (`persist: "session"`). */
  approved: Set<string>;
}

/** What a reload changed for one thread: whether to list its servers again now, and the re-announcements. */
export interface McpReconfiguration {
  /** The thread has servers: the new, changed and not yet started ones start now, as the reference's do. */
  relist: boolean;
  /** `ready` again, for each kept server whose session runs, as the reference announces its kept servers. */
  ready: McpStartupEvent[];
  /** The kept servers whose start had failed: the reference starts them again. */
  retry: McpLease[];
}

const NAMESPACE_PREFIX = 'mcp__';
type Runtime = typeof import('./mcp/mcp-runtime.js');

export class ThreadMcp {
  readonly #threads = new Map<string, ThreadServers>();
  /** Every attached thread's request `config` map (null when it had none), by thread id. */
  readonly #requestConfigs = new Map<string, Record<string, unknown> | null>();
  readonly #env: NodeJS.ProcessEnv;
  readonly #log: LogFn;
  readonly #onStartupStatus: (event: McpStartupEvent) => void;
  #runtime: Promise<{ runtime: Runtime; hub: McpHub }> | null = null;
  #hub: McpHub | null = null;
  #resolveLaunch: Runtime['resolveLaunch'] | null = null;
  #closed = false;

  constructor(env: NodeJS.ProcessEnv, log: LogFn, onStartupStatus: (event: McpStartupEvent) => void) {
    this.#env = env;
    this.#log = log;
    this.#onStartupStatus = onStartupStatus;
  }

  /** The thread loaded with these servers: noted, nothing started or loaded yet. */
  attach(threadId: string, servers: readonly McpServerConfig[], requestConfig: Record<string, unknown> | null = null): void {
    this.detach(threadId);
    this.#requestConfigs.set(threadId, requestConfig);
    const enabled = servers.filter((server) => server.enabled);
    if (enabled.length === 0) return;
    const entry: ThreadServers = { servers: new Map(), tools: new Map(), approved: new Set() };
    for (const config of enabled) entry.servers.set(config.name, { config, lease: null });
    this.#threads.set(threadId, entry);
  }

  /** The thread unloads: its leases go back (a server no thread holds stops after a linger). */
  detach(threadId: string): void {
    this.#requestConfigs.delete(threadId);
    if (!this.#threads.delete(threadId)) return;
    this.#hub?.releaseThread(threadId);
  }

  /** The attached threads with their request `config` maps: what a reload resolves again. */
  attached(): Array<[threadId: string, requestConfig: Record<string, unknown> | null]> {
    return [...this.#requestConfigs];
  }

  /**
   * config/mcpServer/reload: the thread's servers are now `servers`. A server whose launch is
   * unchanged keeps its lease (a new one when only its settings changed, so its tool filter and
   * timeouts are the new ones); a changed or removed one gives its lease back; a new one is
   * leased when it is first used. The session approvals stay.
   */
  reconfigured(threadId: string, servers: readonly McpServerConfig[]): McpReconfiguration {
    const entry = this.#threads.get(threadId);
    const next: ThreadServers = { servers: new Map(), tools: new Map(), approved: entry?.approved ?? new Set() };
    const ready: McpStartupEvent[] = [];
    const retry: McpLease[] = [];
    for (const config of servers.filter((server) => server.enabled)) {
      const old = entry?.servers.get(config.name);
      entry?.servers.delete(config.name);
      const lease = old?.lease == null ? null : this.#keptLease(threadId, old.lease, old.config, config);
      if (old?.lease != null && lease !== old.lease) this.#hub!.release(old.lease);
      if (lease !== null && lease === old?.lease) next.tools.set(config.name, entry!.tools.get(config.name) ?? []);
      if (lease !== null && this.#hub!.isReady(lease)) {
        ready.push({ name: config.name, identity: lease.launch.identity, threadIds: [threadId], status: 'ready', error: null });
      }
      if (lease !== null && this.#hub!.startFailed(lease)) retry.push(lease);
      next.servers.set(config.name, { config, lease });
    }
    for (const gone of entry?.servers.values() ?? []) if (gone.lease !== null) this.#hub!.release(gone.lease);
    if (next.servers.size === 0) this.#threads.delete(threadId);
    else this.#threads.set(threadId, next);
    return { relist: next.servers.size > 0, ready, retry };
  }

  /** After a reload: the kept servers whose start had failed start again now (the next listing waits for them). */
  retryFailed(leases: readonly McpLease[]): void {
    for (const lease of leases) this.#hub?.restartFailed(lease);
  }

  /** Tells the event's threads of a startup status as the hub would (a reload's re-announcement). */
  announce(event: McpStartupEvent): void {
    this.#onStartupStatus(event);
  }

  /** After a reload: the sessions no lease holds and no attached thread's servers launch stop now. */
  stopUnwanted(): void {
    if (this.#hub === null || this.#resolveLaunch === null) return;
    const wanted = new Set<LaunchIdentity>();
    for (const entry of this.#threads.values()) {
      for (const { config } of entry.servers.values()) {
        try {
          wanted.add(this.#resolveLaunch(config, this.#env).identity);
        } catch {
          // A server that cannot launch has no session to keep.
        }
      }
    }
    this.#hub.stopUnwanted(wanted);
  }

  // The lease a kept server goes on with: the old one when nothing changed, a new one on the
  // same session when only its settings did, none when it launches differently.
  #keptLease(threadId: string, lease: McpLease, was: McpServerConfig, config: McpServerConfig): McpLease | null {
    if (JSON.stringify(was) === JSON.stringify(config)) return lease;
    let launch;
    try {
      launch = this.#resolveLaunch!(config, this.#env);
    } catch {
      return null;
    }
    return launch.identity === lease.launch.identity ? this.#hub!.lease(threadId, launch) : null;
  }

  /** Whether the thread's turns ask for MCP tools before sampling. */
  offersTools(threadId: string): boolean {
    return this.#threads.has(threadId);
  }

  /**
   * The Responses API `tools` entries of the thread's servers, each listed (and so started)
   * under its startup deadline; a server that fails is left out and the turn goes on.
   * `announceShared`: see `#leased` (a reload's start).
   */
  async toolSpecs(threadId: string, announceShared = false): Promise<unknown[]> {
    const entry = this.#threads.get(threadId);
    if (entry === undefined) return [];
    const names = [...entry.servers.keys()].sort();
    const listed = await Promise.all(
      names.map(async (name) => {
        try {
          const { hub, lease } = await this.#leased(threadId, name, announceShared);
          return await hub.tools(lease);
        } catch (error) {
          this.#log('warn', 'MCP server tools unavailable', { threadId, server: name, error: (error as Error).message });
          return [];
        }
      }),
    );
    const specs: unknown[] = [];
    names.forEach((name, i) => {
      const tools = [...listed[i]!].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      entry.tools.set(name, tools);
      if (tools.length === 0) return;
      specs.push({
        type: 'namespace',
        name: `${NAMESPACE_PREFIX}${name}`,
        description: `Tools in the ${NAMESPACE_PREFIX}${name} namespace.`,
        tools: tools.map((tool) => ({ type: 'function', name: tool.name, description: tool.description ?? '', strict: false, parameters: withoutSchemaKey(tool.inputSchema) })),
      });
    });
    return specs;
  }

  /** The server tool a call names (`mcp__<server>` namespace), as last listed for the thread. */
  toolFor(threadId: string, namespace: string | null, name: string): McpToolTarget | undefined {
    if (namespace === null || !namespace.startsWith(NAMESPACE_PREFIX)) return undefined;
    const entry = this.#threads.get(threadId);
    const serverName = namespace.slice(NAMESPACE_PREFIX.length);
    const server = entry?.servers.get(serverName);
    const tool = entry?.tools.get(serverName)?.find((candidate) => candidate.name === name);
    if (server?.lease == null || tool === undefined || this.#hub === null) return undefined;
    return { hub: this.#hub, lease: server.lease, server: server.config, tool };
  }

  /** One of the thread's servers, leased (the session may start); undefined when it has none of that name. */
  async serverOf(threadId: string, name: string): Promise<{ hub: McpHub; lease: McpLease; config: McpServerConfig } | undefined> {
    const server = this.#threads.get(threadId)?.servers.get(name);
    if (server === undefined) return undefined;
    const { hub, lease } = await this.#leased(threadId, name);
    return { hub, lease, config: server.config };
  }

  /** The names of the thread's servers, sorted. */
  serverNames(threadId: string): string[] {
    return [...(this.#threads.get(threadId)?.servers.keys() ?? [])].sort();
  }

  /** The sessions' statuses, from memory; none before the hub was first needed. */
  status(): McpServerStatus[] {
    return this.#hub?.status() ?? [];
  }

  /** Whether the client approved `key` (`server/tool`) for the thread's session. */
  approvedForSession(threadId: string, key: string): boolean {
    return this.#threads.get(threadId)?.approved.has(key) === true;
  }

  approveForSession(threadId: string, key: string): void {
    this.#threads.get(threadId)?.approved.add(key);
  }

  /** Host shutdown: every session stops, every stdio server's process group is killed. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#threads.clear();
    this.#requestConfigs.clear();
    if (this.#runtime !== null) await (await this.#runtime).hub.close();
  }

  // The thread's lease on a server, taken on first use (loading the hub the first time). With
  // `announceShared`, a lease on a session another thread already runs tells this thread it is
  // ready, as the reference's thread, which runs its own, announces it.
  async #leased(threadId: string, name: string, announceShared = false): Promise<{ hub: McpHub; lease: McpLease }> {
    const { runtime, hub } = await this.#loaded();
    const server = this.#threads.get(threadId)?.servers.get(name);
    if (server === undefined) throw new Error(`the thread no longer has the MCP server ${name}`);
    if (server.lease === null) {
      const lease = hub.lease(threadId, runtime.resolveLaunch(server.config, this.#env));
      server.lease = lease;
      if (announceShared && hub.isReady(lease)) {
        this.#onStartupStatus({ name, identity: lease.launch.identity, threadIds: [threadId], status: 'ready', error: null });
      }
    }
    return { hub, lease: server.lease };
  }

  #loaded(): Promise<{ runtime: Runtime; hub: McpHub }> {
    if (this.#closed) return Promise.reject(new Error('the host is shutting down'));
    this.#runtime ??= import('./mcp/mcp-runtime.js').then((runtime) => {
      const hub = new runtime.McpHub({ onStartupStatus: this.#onStartupStatus });
      this.#hub = hub;
      this.#resolveLaunch = runtime.resolveLaunch;
      return { runtime, hub };
    });
    return this.#runtime;
  }
}

// The reference drops a schema's `$schema` member before offering it; the rest stays as sent.
function withoutSchemaKey(schema: Tool['inputSchema']): Record<string, unknown> {
  const { $schema: _schema, ...rest } = schema as Record<string, unknown>;
  return rest;
}
