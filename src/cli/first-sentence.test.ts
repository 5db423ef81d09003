import { describe, expect, it } from "vitest";
import { firstSentence } from "./first-sentence.js";

describe("firstSentence", () => {
  it("does not stop at an abbreviation such as e.g.", () => {
    expect(
      firstSentence(
        'How much time lies between two instants or dates, e.g. from "2025-01-01" to "2025-03-10". Dates are UTC.',
        200,
      ),
    ).toBe('How much time lies between two instants or dates, e.g. from "2025-01-01" to "2025-03-10".');
  });

  it("stops at the first real sentence end or line, and cuts what is still too long", () => {
    expect(firstSentence("Roll dice. Then more.")).toBe("Roll dice.");
    expect(firstSentence("Version 1.5 of it\nsecond line")).toBe("Version 1.5 of it");
    expect(firstSentence("x".repeat(150), 10)).toBe(`${"x".repeat(9)}…`);
    expect(firstSentence(undefined)).toBe("");
  });
});
