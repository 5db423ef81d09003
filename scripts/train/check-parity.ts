/**
 * `tsx scripts/train/check-parity.ts`: a randomly initialised train.py model, exported through export-gguf.ts,
 * must give node-llama-cpp the same next-token logits as PyTorch (RoPE pairing, norms, SwiGLU, tied output, tensor
 * layout all checked at once). Prints the largest difference; exits 1 above the tolerance.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { ControlledEvaluateInputItem, Token } from "node-llama-cpp";
import { createChatMlVocabulary } from "../../src/models/gguf/llama-gguf.js";
import { createRandom } from "../../src/models/gguf/make-test-model.js";
import { exportGguf } from "./export-gguf.js";

export const PYTHON = process.env.TOOLBRIDGE_TRAIN_PYTHON ?? "/usr/bin/python3";
const TRAIN_PY = fileURLToPath(new URL("./train.py", import.meta.url));

/** Whether this machine can run train.py (Debian's python3-torch, or TOOLBRIDGE_TRAIN_PYTHON). */
export function torchAvailable(): boolean {
  const r = spawnSync(PYTHON, ["-c", "import torch, numpy"], { stdio: "ignore" });
  return r.status === 0;
}

export interface ParityReport {
  maxAbsDiff: number;
  /** Largest |logit| seen, for scale. */
  maxAbsLogit: number;
  positions: number;
}

export async function checkParity(): Promise<ParityReport> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "toolbridge-parity-"));
  try {
    const pieces = ["ca", "lc", "calc", "ul", "ator", "calculator", "▁the", "→"];
    const vocab = createChatMlVocabulary({ pieces }).tokens.length;
    const random = createRandom(5);
    const sequences = [5, 17, 40].map((n) => Array.from({ length: n }, () => Math.floor(random() * vocab)));
    writeFileSync(path.join(dir, "seqs.json"), JSON.stringify(sequences));
    const weights = path.join(dir, "weights");
    const py = spawnSync(
      PYTHON,
      [TRAIN_PY, "--parity", weights, "--vocab", String(vocab), "--sequences", path.join(dir, "seqs.json")],
      {
        encoding: "utf8",
      },
    );
    if (py.status !== 0) throw new Error(`train.py --parity failed: ${py.stderr}`);
    const expected = JSON.parse(readFileSync(path.join(weights, "logits.json"), "utf8")) as number[][][];
    const ggufPath = path.join(dir, "parity.gguf");
    writeFileSync(ggufPath, exportGguf({ weightsDir: weights, pieces, name: "parity" }));

    const { getLlama, LlamaLogLevel } = await import("node-llama-cpp");
    const llama = await getLlama({ gpu: false, build: "never", logLevel: LlamaLogLevel.error });
    const model = await llama.loadModel({ modelPath: ggufPath });
    const context = await model.createContext({ contextSize: 256, threads: 1, sequences: 3 });
    let maxAbsDiff = 0;
    let maxAbsLogit = 0;
    let positions = 0;
    try {
      for (const [s, seq] of sequences.entries()) {
        const sequence = context.getSequence();
        const input: ControlledEvaluateInputItem[] = seq.map((t) => [
          t as Token,
          { generateNext: { logits: true } },
        ]);
        const out = await sequence.controlledEvaluate(input);
        for (let i = 0; i < seq.length; i++) {
          const logits = out[i]?.next?.logits;
          if (!logits) throw new Error(`no logits at position ${i}`);
          const ref = expected[s]?.[i] as number[];
          for (let t = 0; t < vocab; t++) {
            const a = logits.get(t as Token) ?? Number.NaN;
            const b = ref[t] as number;
            maxAbsDiff = Math.max(maxAbsDiff, Math.abs(a - b));
            maxAbsLogit = Math.max(maxAbsLogit, Math.abs(b));
          }
          positions++;
        }
        sequence.dispose();
      }
    } finally {
      await context.dispose();
      await model.dispose();
    }
    return { maxAbsDiff, maxAbsLogit, positions };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const report = await checkParity();
  process.stdout.write(`${JSON.stringify(report)}\n`);
  process.exit(report.maxAbsDiff <= 1e-3 ? 0 : 1);
}
