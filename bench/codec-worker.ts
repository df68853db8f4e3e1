// The worker side of bench/codec.ts: encodes sample events (or resume snapshots) with the
// requested codec and posts them on the event port, stamping each send time into shared
// memory first, so latency covers encode + clone/transfer + decode. A burst stays within a
// credit window: an unbounded burst of 200k events would queue gigabytes when each post
// clones an 8 KiB scratch buffer.
import { parentPort, workerData } from 'node:worker_threads';
import type { ActorResumeState } from '../src/common/actor-messages.js';
import { encodeSnapshot } from '../src/common/snapshot-codec.js';
import { sampleEvent } from './lib/actor-event-samples.js';
import { type CodecControl, type CodecWorkerData, crossThreadNowMs, type SnapshotCodecName } from './lib/codec-protocol.js';
import { createCodec, type CodecName, type EventCodec } from './lib/event-codecs.js';
import { sampleResumeState } from './lib/snapshot-samples.js';

const { eventPort, stamps: stampBuffer } = workerData as CodecWorkerData;
const stamps = new Float64Array(stampBuffer);
const codecs = new Map<CodecName, EventCodec>();
const states = new Map<number, ActorResumeState>();

let run: { codec: EventCodec; event: ReturnType<typeof sampleEvent>; count: number; sent: number; acked: number; window: number } | null = null;
let snapshotRun: { codec: SnapshotCodecName; state: ActorResumeState; count: number; sent: number } | null = null;

function sendOne(): void {
  const r = run!;
  stamps[r.sent] = crossThreadNowMs();
  r.sent += 1;
  const { message, transfer } = r.codec.encode(r.event);
  eventPort.postMessage(message, transfer);
}

function pump(): void {
  const r = run!;
  while (r.sent < r.count && r.sent - r.acked < r.window) sendOne();
}

/** As the host does it: src/actors/actor-host.ts transfers the packed bytes. */
function sendSnapshot(): void {
  const r = snapshotRun!;
  stamps[r.sent] = crossThreadNowMs();
  r.sent += 1;
  if (r.codec === 'structured-clone') {
    eventPort.postMessage(r.state);
  } else {
    const bytes = encodeSnapshot(r.state);
    eventPort.postMessage(bytes, [bytes.buffer as ArrayBuffer]);
  }
}

parentPort!.on('message', (control: CodecControl) => {
  switch (control.cmd) {
    case 'start': {
      let codec = codecs.get(control.codec);
      if (!codec) codecs.set(control.codec, (codec = createCodec(control.codec)));
      snapshotRun = null;
      run = { codec, event: sampleEvent(control.kind), count: control.count, sent: 0, acked: 0, window: control.window };
      if (control.mode === 'burst') pump();
      else sendOne();
      return;
    }
    case 'snapshot': {
      let state = states.get(control.turns);
      if (!state) states.set(control.turns, (state = sampleResumeState(control.turns)));
      run = null;
      snapshotRun = { codec: control.codec, state, count: control.count, sent: 0 };
      sendSnapshot();
      return;
    }
    case 'credit':
      run!.acked = control.received;
      pump();
      return;
    case 'next':
      if (snapshotRun !== null && snapshotRun.sent < snapshotRun.count) sendSnapshot();
      else if (run !== null && run.sent < run.count) sendOne();
      return;
  }
});
