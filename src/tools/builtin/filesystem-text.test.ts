import { describe, expect, it } from "vitest";
import { decodeText, looksBinary, splitLines } from "./filesystem-text.js";

describe("decodeText", () => {
  it("decodes UTF-8 text and keeps a BOM", () => {
    expect(decodeText(Buffer.from("héllo ✓"))).toBe("héllo ✓");
    expect(decodeText(Buffer.from("\uFEFFbom"))).toBe("\uFEFFbom");
  });

  it("refuses NUL-containing and invalid UTF-8 bytes", () => {
    expect(looksBinary(Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00]))).toBe(true);
    expect(decodeText(Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00]))).toBeUndefined();
    expect(decodeText(Buffer.from([0xff, 0xfe, 0x41]))).toBeUndefined();
  });

  it("tolerates a character cut by a read limit only when asked", () => {
    const cut = Buffer.from("ab✓").subarray(0, 4);
    expect(decodeText(cut)).toBeUndefined();
    expect(decodeText(cut, true)).toBe("ab");
  });
});

describe("splitLines", () => {
  it("numbers lines like an editor", () => {
    expect(splitLines("")).toEqual([]);
    expect(splitLines("a\nb\n")).toEqual(["a", "b"]);
    expect(splitLines("a\r\nb")).toEqual(["a", "b"]);
    expect(splitLines("a\n\n")).toEqual(["a", ""]);
  });
});
