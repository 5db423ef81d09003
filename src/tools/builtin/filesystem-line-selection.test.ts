import { describe, expect, it } from "vitest";
import { FilesystemError } from "./filesystem-errors.js";
import { checkLineSelection, selectLines } from "./filesystem-line-selection.js";

function codeOf(action: () => unknown): string | undefined {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(FilesystemError);
    return (error as FilesystemError).code;
  }
  return undefined;
}

describe("line selection", () => {
  it("says whether a selection was asked for and refuses contradictory ones as argument errors", () => {
    expect(checkLineSelection({})).toBe(false);
    expect(checkLineSelection({ head: 2 })).toBe(true);
    expect(checkLineSelection({ startLine: 2, endLine: 2 })).toBe(true);
    expect(codeOf(() => checkLineSelection({ head: 1, tail: 1 }))).toBe("invalid-argument");
    expect(codeOf(() => checkLineSelection({ tail: 1, startLine: 1 }))).toBe("invalid-argument");
    expect(codeOf(() => checkLineSelection({ startLine: 3, endLine: 2 }))).toBe("invalid-argument");
  });

  it("selects head, tail and ranges, and names a start past the end", () => {
    const text = "a\nb\nc\n";
    expect(selectLines(text, {}, "f")).toBe(text);
    expect(selectLines(text, { head: 2 }, "f")).toBe("a\nb");
    expect(selectLines(text, { tail: 1 }, "f")).toBe("c");
    expect(selectLines(text, { startLine: 2, endLine: 3 }, "f")).toBe("b\nc");
    expect(codeOf(() => selectLines(text, { startLine: 9 }, "f"))).toBe("invalid-argument");
  });
});
