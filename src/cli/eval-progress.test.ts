import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { createEvalProgress, formatDuration, progressBar } from "./eval-progress.js";

describe("eval progress", () => {
  it("formats durations and bars", () => {
    expect(formatDuration(42)).toBe("42s");
    expect(formatDuration(185)).toBe("3m05s");
    expect(formatDuration(3720)).toBe("1h02m");
    expect(progressBar(0.5, 10)).toBe("█████░░░░░");
  });

  it("writes one line per format where stderr is no terminal", () => {
    const stream = new PassThrough() as unknown as NodeJS.WriteStream;
    let written = "";
    (stream as unknown as PassThrough).on("data", (chunk) => {
      written += chunk;
    });
    const progress = createEvalProgress(stream, 3);
    progress.variant("hermes (grammar)", 0, 2, 4, 3);
    progress.entry(true);
    progress.variantDone("hermes (grammar)", 2, 4, 65);
    progress.stop();
    expect(written).toBe(
      "[1/2] hermes (grammar): 4 entries (1 resumed)…\n[1/2] hermes (grammar): 2/4 passed (50.0%) in 1m05s\n",
    );
  });
});
