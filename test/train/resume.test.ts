import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PYTHON, torchAvailable } from "../../scripts/train/check-parity.js";
import { generateTrainingData } from "../helpers/training-data.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "tb-train-resume-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function train(out: string, extra: string[] = []) {
  const r = spawnSync(
    PYTHON,
    [
      "scripts/train/train.py",
      "--data",
      path.join(dir, "data"),
      "--out",
      out,
      "--resume",
      "--steps",
      "24",
      "--threads",
      "1",
      "--dim",
      "32",
      "--layers",
      "2",
      "--heads",
      "2",
      "--ff",
      "64",
      "--batch-tokens",
      "1500",
      "--warmup",
      "4",
      ...extra,
    ],
    { encoding: "utf8", timeout: 300_000 },
  );
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

// Needs Debian's python3-torch (the training machine); skipped where PyTorch is not installed.
describe.skipIf(!torchAvailable())("train.py checkpoints", () => {
  it("a run stopped and resumed from its checkpoint ends with the same weights as one that ran through", () => {
    generateTrainingData(path.join(dir, "data"), 240);
    train(path.join(dir, "through"));
    train(path.join(dir, "stopped"), ["--stop-at-step", "11"]);
    const resumed = train(path.join(dir, "stopped"));
    expect(resumed).toContain("resumed from");
    for (const tensor of ["token_embd", "blk.1.w_down", "output_norm"]) {
      const a = readFileSync(path.join(dir, "through", `${tensor}.f32`));
      const b = readFileSync(path.join(dir, "stopped", `${tensor}.f32`));
      expect(b.equals(a), tensor).toBe(true);
    }
  }, 600_000);
});
