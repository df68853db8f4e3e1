// A `thread/loaded/list` probe (list-probe.ts) on its own WebSocket connection, run in a worker
// thread of the bench: the scenario's other client may parse multi-megabyte replies on the main
// thread (the 20 MB history of `stored-read`), and a probe timed there would count that as the
// server's stall. Times cross threads as absolute milliseconds (timeOrigin + now), converted
// back to the main thread's `performance.now()` by `ProbeInWorker`.
//
//   main                              this worker
//   ─── workerData { url, intervalMs, limit? } ▶ connect, start probing
//   ◀── { type: 'started' }
//   ─── { type: 'probeNow' }           ▶ one more probe now
//   ─── { type: 'stop' }               ▶ stop, wait for every answer
//   ◀── { type: 'stopped', samples, clientStallMaxMs }
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { ListProbe, type ProbeSample } from './list-probe.js';
import { WorkerChannel } from './worker-channel.js';
import { WsBenchClient } from './ws-bench-client.js';

interface ProbeData {
  url: string;
  intervalMs: number;
  limit?: number;
}

type ProbeCommand = { type: 'probeNow' } | { type: 'stop' };
type ProbeEvent = { type: 'started' } | { type: 'failed'; error: string } | { type: 'stopped'; samples: ProbeSample[]; clientStallMaxMs: number };

const absolute = (t: number): number => performance.timeOrigin + t;
const local = (t: number): number => t - performance.timeOrigin;

/** The main thread's handle on a probe worker. */
export class ProbeInWorker {
  readonly #channel: WorkerChannel<ProbeCommand, ProbeEvent>;
  clientStallMaxMs = 0;

  private constructor(worker: Worker) {
    this.#channel = new WorkerChannel('probe', worker);
  }

  /** Starts a worker probing `url` every `intervalMs`; resolves once it has sent its first probe. */
  static async start(url: string, intervalMs: number, limit?: number): Promise<ProbeInWorker> {
    const probe = new ProbeInWorker(new Worker(fileURLToPath(import.meta.url), { workerData: { url, intervalMs, limit } satisfies ProbeData }));
    try {
      await probe.#channel.next('started');
    } catch (error) {
      await probe.terminate();
      throw error;
    }
    return probe;
  }

  probeNow(): void {
    this.#channel.send({ type: 'probeNow' });
  }

  /** Stops probing; the samples, in this thread's `performance.now()` time. The worker then ends. */
  async stop(): Promise<ProbeSample[]> {
    this.#channel.send({ type: 'stop' });
    try {
      const stopped = await this.#channel.next('stopped');
      this.clientStallMaxMs = stopped.clientStallMaxMs;
      return stopped.samples.map((s) => ({ ...s, sentAt: local(s.sentAt), at: s.at === null ? null : local(s.at) }));
    } finally {
      await this.terminate();
    }
  }

  async terminate(): Promise<void> {
    await this.#channel.terminate();
  }
}

async function serve(data: ProbeData): Promise<void> {
  const port = parentPort!;
  const post = (event: ProbeEvent): void => port.postMessage(event);
  try {
    const client = await WsBenchClient.connect(data.url);
    const probe = new ListProbe(client, data.intervalMs, data.limit === undefined ? {} : { limit: data.limit });
    port.on('message', (command: ProbeCommand) => {
      if (command.type === 'probeNow') probe.probeNow();
      else
        void probe.stop().then((samples) => {
          post({ type: 'stopped', samples: samples.map((s) => ({ ...s, sentAt: absolute(s.sentAt), at: s.at === null ? null : absolute(s.at) })), clientStallMaxMs: probe.clientStallMaxMs });
          client.close();
        });
    });
    probe.start();
    post({ type: 'started' });
  } catch (error) {
    post({ type: 'failed', error: String(error) });
  }
}

if (!isMainThread && (workerData as ProbeData | null)?.url !== undefined) void serve(workerData as ProbeData);
