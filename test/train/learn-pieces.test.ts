import { describe, expect, it } from "vitest";
import { learnPieces } from "../../scripts/train/learn-pieces.js";

const texts = [
  '{"name":"get_time","arguments":{"timezone":"Europe/Paris"}}',
  '{"name":"get_time","arguments":{"timezone":"Asia/Tokyo"}}',
  "what time is it in Europe/Paris? what time is it in Asia/Tokyo?",
];

describe("vocabulary pieces", () => {
  it("merges frequent letter runs and punctuation runs, never digits or spaces", () => {
    const pieces = learnPieces([...texts, "12 34 12 34"], 40, []);
    expect(pieces).toContain("time");
    expect(pieces).toContain('":"');
    expect(pieces.some((p) => /[0-9\s]/.test(p))).toBe(false);
  });
});
