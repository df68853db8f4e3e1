// What one huge input line costs the main thread, before and after the line-parser worker,
// measured on the real modules with no server: a turn/start line of pasted-code text (quotes,
// newlines, 2–4-byte UTF-8) fed to the stdio line splitter in 64 KiB reads, then
//   before  decode + parse on the main thread (what main did for every line);
//   after   the splitter's copies into blocks (spread over the reads), the hand-off to a worker
//           (postMessage with the blocks transferred), and taking the parsed value back
//           (structured-clone deserialization, as v8.deserialize does it, plus the JsonNumbers).
// Best of --runs per step, so the figures are the work, not this shared machine's noise.
//   node dist/bench/line-parse-cost.js [--sizes 0.064,1,5.8,10] [--runs 5]
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
import { Worker } from 'node:worker_threads';
import { decodeUtf8Line, parseLine, parseLineBytes } from '../src/common/line-outcome.js';
import { fromTransfer, toTransfer } from '../src/common/parsed-json-transfer.js';
import { LARGE_LINE_BYTES } from '../src/main/transport/transport.js';
import { LineSplitter, type LineEvent } from '../src/main/transport/line-splitter.js';
import { positiveInt } from './lib/bench-options.js';
import { pastedText } from './lib/pasted-text.js';

const READ_BYTES = 65_536;
const { values } = parseArgs({ args: process.argv.slice(2), options: { sizes: { type: 'string' }, runs: { type: 'string' } } });
const sizes = (values.sizes ?? '0.064,1,5.8,10').split(',').map(Number);
const runs = positiveInt(values.runs, 'runs', 5);

/** The fastest of `runs` timings of `step`, in ms. */
function best(step: () => number): number {
  let fastest = Number.POSITIVE_INFINITY;
  for (let i = 0; i < runs; i += 1) fastest = Math.min(fastest, step());
  return Math.round(fastest * 100) / 100;
}

const timed = (work: () => void): number => {
  const start = performance.now();
  work();
  return performance.now() - start;
};

// A worker that takes the blocks and does nothing: only the main thread's side is timed here.
const sink = new Worker('require("node:worker_threads").parentPort.on("message", () => {})', { eval: true });

for (const mb of sizes) {
  const text = pastedText(mb * 1_000_000);
  const line = Buffer.from(JSON.stringify({ id: 7, method: 'turn/start', params: { threadId: 'x', input: [{ type: 'text', text, text_elements: [] }] } }) + '\n');
  const reads: Buffer[] = [];
  for (let at = 0; at < line.length; at += READ_BYTES) reads.push(Buffer.from(line.subarray(at, at + READ_BYTES)));
  const split = (): Uint8Array[] => {
    const splitter = new LineSplitter(32 << 20, 4096, LARGE_LINE_BYTES);
    const events: LineEvent[] = reads.flatMap((read) => splitter.push(read));
    const event = events[0];
    if (event?.kind !== 'largeLine') throw new Error(`expected one large line, got ${event?.kind}`);
    return event.segments;
  };
  const back = v8.serialize(toTransfer((parseLineBytes(line.subarray(0, -1)) as Extract<ReturnType<typeof parseLine>, { kind: 'parsed' }>).parsed));
  console.log(
    JSON.stringify({
      bytes: line.length,
      before: { decodeAndParseMs: best(() => timed(() => parseLine(decodeUtf8Line(Buffer.concat(reads))!))) },
      after: {
        splitterCopiesMs: best(() => timed(split)),
        handOffMs: best(() => {
          const segments = split();
          return timed(() => sink.postMessage({ job: 1, segments }, segments.map((segment) => segment.buffer as ArrayBuffer)));
        }),
        takeBackMs: best(() => timed(() => fromTransfer(v8.deserialize(back)))),
      },
    }),
  );
}
await sink.terminate();
