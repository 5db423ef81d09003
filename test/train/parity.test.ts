import { describe, expect, it } from "vitest";
import { checkParity, torchAvailable } from "../../scripts/train/check-parity.js";

// Needs Debian's python3-torch (the training machine); skipped where PyTorch is not installed.
describe.skipIf(!torchAvailable())("train.py ↔ GGUF parity", () => {
  it("a random PyTorch model exported with our GGUF writer gives node-llama-cpp the same next-token logits", async () => {
    const report = await checkParity();
    expect(report.positions).toBeGreaterThan(50);
    // llama.cpp's f16 KV cache accounts for ~1e-3; a wrong RoPE pairing or tensor layout gives ~1e-1.
    expect(report.maxAbsDiff).toBeLessThan(5e-3);
    expect(report.maxAbsLogit).toBeGreaterThan(0.5);
  }, 180_000);
});
