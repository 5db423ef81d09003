import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PYTHON } from "../../scripts/train/check-parity.js";
import { generateTrainingData } from "../helpers/training-data.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "tb-train-pack-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const numpy = spawnSync(PYTHON, ["-c", "import numpy"], { stdio: "ignore" }).status === 0;

function pack(args: string[], env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(PYTHON, ["scripts/train/pack.py", ...args], {
    encoding: "utf8",
    env: { ...process.env, ...env },
    timeout: 120_000,
  });
  expect(r.status, r.stderr).toBe(0);
}

// pack.py carries the training data to a GPU machine without Node and the weights back in files under its size limit.
describe.skipIf(!numpy)("scripts/train/pack.py", () => {
  it("gives back the very bytes of the training data train.py reads", () => {
    generateTrainingData(path.join(dir, "data"), 120);
    pack(["data", path.join(dir, "data"), path.join(dir, "data.xz")]);
    pack(["undata", path.join(dir, "data.xz"), path.join(dir, "back")]);
    for (const file of ["train.ids.i32", "train.mask.u8", "train.offsets.i32", "vocab-size.json"]) {
      const a = readFileSync(path.join(dir, "data", file));
      expect(readFileSync(path.join(dir, "back", file)).equals(a), file).toBe(true);
    }
    const packed = readFileSync(path.join(dir, "data.xz")).length;
    expect(packed).toBeLessThan(readFileSync(path.join(dir, "data", "train.ids.i32")).length / 4);
  }, 300_000);

  it("brings weights back in parts under the size limit, each tensor within f16 rounding", () => {
    const weights = path.join(dir, "weights");
    mkdirSync(weights, { recursive: true });
    mkdirSync(path.join(dir, "out"), { recursive: true });
    const shapes: Record<string, number[]> = {
      token_embd: [300, 64],
      "blk.0.wq": [64, 64],
      output_norm: [64],
    };
    const original: Record<string, Float32Array> = {};
    let seed = 7;
    for (const [name, shape] of Object.entries(shapes)) {
      const values = new Float32Array(shape.reduce((a, b) => a * b, 1)).map(() => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        return (seed / 2 ** 31 - 0.5) * 0.2;
      });
      original[name] = values;
      writeFileSync(path.join(weights, `${name}.f32`), Buffer.from(values.buffer));
    }
    writeFileSync(
      path.join(weights, "manifest.json"),
      JSON.stringify({ dim: 64, steps: 12, tensors: shapes }),
    );
    pack(["weights", weights, path.join(dir, "out", "m")], { TOOLBRIDGE_PACK_PART: "20000" });
    const parts = readdirSync(path.join(dir, "out"));
    expect(parts.length).toBeGreaterThan(1);
    for (const p of parts) expect(readFileSync(path.join(dir, "out", p)).length).toBeLessThanOrEqual(20000);
    pack(["unweights", path.join(dir, "out", "m"), path.join(dir, "back-weights")]);
    const manifest = JSON.parse(readFileSync(path.join(dir, "back-weights", "manifest.json"), "utf8"));
    expect(manifest).toMatchObject({ dim: 64, steps: 12, tensors: shapes });
    for (const [name, values] of Object.entries(original)) {
      const bytes = readFileSync(path.join(dir, "back-weights", `${name}.f32`));
      const back = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
      expect(back.length).toBe(values.length);
      const worst = values.reduce(
        (w, v, i) => Math.max(w, Math.abs(v - (back[i] as number)) / Math.max(Math.abs(v), 1e-3)),
        0,
      );
      expect(worst, name).toBeLessThan(1e-3);
    }
  });
});
