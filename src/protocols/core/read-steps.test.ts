import { describe, expect, it } from "vitest";
import { readSteps, type Step } from "./read-steps.js";

describe("readSteps", () => {
  it("reads on from where each step left off until one answers, and returns that answer", () => {
    const seen: number[] = [];
    // Two states: skip spaces, then read a word; the word's end answers.
    let state: "space" | "word" = "space";
    const text = "   word rest";
    const result = readSteps(0, (at): Step => {
      seen.push(at);
      if (state === "space") {
        let i = at;
        while (text[i] === " ") i++;
        state = "word";
        return i;
      }
      return { pos: text.indexOf(" ", at), done: true };
    });
    expect(seen).toEqual([0, 3]);
    expect(result).toEqual({ pos: 7, done: true });
  });

  it("answers at once when the first step does", () => {
    const answer = { pos: 5, done: false };
    expect(readSteps(5, () => answer)).toBe(answer);
  });
});
