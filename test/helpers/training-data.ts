import { spawnSync } from "node:child_process";
import { expect } from "vitest";

/** A small training data folder (generate-data.ts: people-like conversations, a 60-piece vocabulary, no held-out). */
export function generateTrainingData(out: string, conversations: number): void {
  const r = spawnSync(
    process.execPath,
    [
      "--import",
      "tsx",
      "scripts/train/generate-data.ts",
      "--train",
      String(conversations),
      "--held-out",
      "0",
      "--people",
      "0.8",
      "--pieces",
      "60",
      "--out",
      out,
    ],
    { encoding: "utf8", timeout: 300_000 },
  );
  expect(r.status, r.stderr).toBe(0);
}
