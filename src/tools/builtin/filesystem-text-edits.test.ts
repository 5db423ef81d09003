import { describe, expect, it } from "vitest";
import { FilesystemError } from "./filesystem-errors.js";
import { applyEdits } from "./filesystem-text-edits.js";

function refusal(action: () => unknown): FilesystemError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(FilesystemError);
    return error as FilesystemError;
  }
  throw new Error("expected a refusal");
}

describe("applyEdits", () => {
  it("applies edits in order and counts replacements", () => {
    expect(
      applyEdits(
        "one two two",
        [
          { oldText: "one", newText: "1" },
          { oldText: "two", newText: "2", replaceAll: true },
        ],
        "f",
      ),
    ).toEqual({ text: "1 2 2", replacements: 3 });
  });

  it("matches plain newlines in a CRLF file and keeps CRLF", () => {
    expect(applyEdits("a\r\nb\r\n", [{ oldText: "a\nb", newText: "x\ny" }], "f").text).toBe("x\r\ny\r\n");
  });

  it("refuses missing, ambiguous and empty oldText, naming which edit", () => {
    expect(refusal(() => applyEdits("x", [{ oldText: "y", newText: "z" }], "f")).message).toMatch(
      /not found/,
    );
    const twice = refusal(() => applyEdits("x x", [{ oldText: "x", newText: "z" }], "f"));
    expect(twice.code).toBe("edit-mismatch");
    expect(twice.message).toMatch(/occurs 2 times/);
    const empty = refusal(() =>
      applyEdits(
        "x",
        [
          { oldText: "x", newText: "y" },
          { oldText: "", newText: "z" },
        ],
        "f",
      ),
    );
    expect(empty.code).toBe("invalid-argument");
    expect(empty.message).toMatch(/edits\[1\]\.oldText is empty/);
  });
});
