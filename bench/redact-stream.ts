/**
 * bench:redact-stream — what redacting a streamed answer costs per token, the cost every /v1 stream (and every run's
 * live events) pays on the event loop that also drives generation. 1,500 one-word text deltas (a long answer of a fast
 * local model) through redactModelStream with the default redactor, side by side with the same deltas passed through
 * untouched, in one process: warm-up, then the median of 31 alternated rounds of CPU time.
 * Measured (2 shared cores, median of 31): scanning the hold-back window at every delta 8.2 ms an answer (5.4 µs a
 * delta); once per 32 characters (StreamRedactor's batch) 1.6 ms (0.9 µs a delta) — against ~1.3 s of generation at
 * ~1,200 tokens/s.
 * Run: npm run bench:redact-stream
 */
import type { ModelEvent } from "../src/core/language-model.js";
import { redactModelStream } from "../src/tools/redact-model-stream.js";
import { createRedactor } from "../src/tools/redact-secrets.js";

const WORDS = "the sea was calm and the ship sailed on through the night while the sailors sang".split(" ");
const DELTAS = 1500;

async function* answer(): AsyncGenerator<ModelEvent> {
  for (let i = 0; i < DELTAS; i++) yield { type: "text-delta", text: `${WORDS[i % WORDS.length]} ` };
  yield { type: "finish", reason: "stop" };
}

async function cpuMs(events: AsyncIterable<ModelEvent>): Promise<number> {
  const start = process.cpuUsage();
  for await (const _event of events) {
    // drained
  }
  const spent = process.cpuUsage(start);
  return (spent.user + spent.system) / 1000;
}

const redact = createRedactor();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (let i = 0; i < 5; i++) {
  await cpuMs(redactModelStream(answer(), redact));
  await cpuMs(answer());
}
const redacted: number[] = [];
const plain: number[] = [];
for (let i = 0; i < 31; i++) {
  redacted.push(await cpuMs(redactModelStream(answer(), redact)));
  plain.push(await cpuMs(answer()));
}
const r = median(redacted);
const p = median(plain);
console.log(`${DELTAS} text deltas, median of 31 rounds of CPU time`);
console.log(`redacted: ${r.toFixed(2)} ms (${((r / DELTAS) * 1000).toFixed(2)} µs a delta)`);
console.log(
  `passed through: ${p.toFixed(2)} ms; redaction adds ${(((r - p) / DELTAS) * 1000).toFixed(2)} µs a delta`,
);
