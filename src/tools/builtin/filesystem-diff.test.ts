import { describe, expect, it } from "vitest";
import { unifiedDiff } from "./filesystem-diff.js";

describe("unifiedDiff", () => {
  it("is empty for equal texts", () => {
    expect(unifiedDiff("a\nb\n", "a\nb\n", "f.txt")).toBe("");
  });

  it("shows one changed line with context, removal before addition", () => {
    const before = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
    const after = "1\n2\n3\n4\nFIVE\n6\n7\n8\n9\n";
    expect(unifiedDiff(before, after, "n.txt")).toBe(
      [
        "--- a/n.txt",
        "+++ b/n.txt",
        "@@ -2,7 +2,7 @@",
        " 2",
        " 3",
        " 4",
        "-5",
        "+FIVE",
        " 6",
        " 7",
        " 8",
      ].join("\n"),
    );
  });

  it("splits distant changes into separate hunks with correct line numbers", () => {
    const lines = Array.from({ length: 30 }, (_, index) => `line ${index + 1}`);
    const changed = [...lines];
    changed[1] = "changed 2";
    changed.splice(25, 0, "inserted");
    const diff = unifiedDiff(`${lines.join("\n")}\n`, `${changed.join("\n")}\n`, "f");
    expect(diff.match(/^@@ .* @@$/gm)).toEqual(["@@ -1,5 +1,5 @@", "@@ -23,6 +23,7 @@"]);
    expect(diff).toContain("-line 2\n+changed 2");
    expect(diff).toContain(" line 25\n+inserted\n line 26");
  });

  it("handles pure insertion into and deletion of a whole file", () => {
    expect(unifiedDiff("", "new\n", "f")).toBe("--- a/f\n+++ b/f\n@@ -0,0 +1,1 @@\n+new");
    expect(unifiedDiff("old\n", "", "f")).toBe("--- a/f\n+++ b/f\n@@ -1,1 +0,0 @@\n-old");
  });
});
