/**
 * npm run make-test-model -- <out.gguf> [--seed N]
 * Writes a tiny llama-architecture GGUF with random weights, a byte-level vocabulary and a ChatML template.
 */
import { parseArgs } from "node:util";
import { writeTestModel } from "../src/models/gguf/make-test-model.js";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { seed: { type: "string", default: "1" } },
});
const out = positionals[0];
const seed = Number(values.seed);
if (!out || !Number.isInteger(seed)) {
  process.stderr.write("usage: npm run make-test-model -- <out.gguf> [--seed N]\n");
  process.exit(2);
}
const started = performance.now();
writeTestModel(out, { seed });
process.stdout.write(`wrote ${out} (seed ${seed}) in ${(performance.now() - started).toFixed(0)} ms\n`);
