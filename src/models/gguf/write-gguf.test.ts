import { describe, expect, it } from "vitest";
import { encodeGguf, fromFloat16Bits, toFloat16Bits } from "./write-gguf.js";

describe("encodeGguf", () => {
  it("writes the GGUF v3 header, metadata and aligned tensor data", () => {
    const bytes = encodeGguf({
      metadata: [
        ["general.name", { type: "string", value: "x" }],
        ["n", { type: "u32", value: 7 }],
        ["list", { type: "array", itemType: "string", values: ["a", "bc"] }],
      ],
      tensors: [{ name: "t", dims: [3], type: "f32", data: new Float32Array([1, 2, 3]) }],
    });
    expect(bytes.subarray(0, 4).toString("ascii")).toBe("GGUF");
    expect(bytes.readUInt32LE(4)).toBe(3);
    expect(bytes.readBigUInt64LE(8)).toBe(1n); // tensors
    expect(bytes.readBigUInt64LE(16)).toBe(3n); // metadata entries
    // The tensor data (last, aligned to 32 bytes) holds the three floats.
    const dataStart = bytes.length - 32;
    expect(dataStart % 32).toBe(0);
    expect([0, 4, 8].map((o) => bytes.readFloatLE(dataStart + o))).toEqual([1, 2, 3]);
  });

  it("rejects tensors whose data does not fill their dimensions", () => {
    expect(() =>
      encodeGguf({
        metadata: [],
        tensors: [{ name: "t", dims: [2, 2], type: "f32", data: new Float32Array(3) }],
      }),
    ).toThrow("dims 2×2 need 4 values, got 3");
  });
});

describe("toFloat16Bits", () => {
  it.each([
    [0, 0x0000],
    [-0, 0x8000],
    [1, 0x3c00],
    [-2, 0xc000],
    [0.5, 0x3800],
    [65504, 0x7bff],
    [1e6, 0x7c00], // overflow → infinity
    [Number.POSITIVE_INFINITY, 0x7c00],
    [2 ** -24, 0x0001], // smallest subnormal
    [0.1, 0x2e66],
  ])("encodes %d", (value, bits) => {
    expect(toFloat16Bits(value)).toBe(bits);
  });

  it("keeps NaN a NaN", () => {
    const bits = toFloat16Bits(Number.NaN);
    expect(bits & 0x7c00).toBe(0x7c00);
    expect(bits & 0x3ff).not.toBe(0);
  });
});

describe("fromFloat16Bits", () => {
  it.each([
    [0x3c00, 1],
    [0xc000, -2],
    [0x7bff, 65504],
    [0x0001, 2 ** -24],
    [0x3555, 0.333251953125],
    [0xfc00, Number.NEGATIVE_INFINITY],
  ])("decodes %d", (bits, value) => {
    expect(fromFloat16Bits(bits)).toBe(value);
  });

  it("reads back every half toFloat16Bits writes (a warm start from an f16 export starts from its weights)", () => {
    for (let bits = 0; bits < 0x10000; bits++) {
      const value = fromFloat16Bits(bits);
      if (Number.isNaN(value)) expect((bits & 0x7c00) === 0x7c00 && (bits & 0x3ff) !== 0).toBe(true);
      else expect(toFloat16Bits(value)).toBe(bits);
    }
  });
});
