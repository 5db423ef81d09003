import { describe, expect, it } from "vitest";
import { parseVariants, variantKey, variantLabel } from "./eval-variant.js";

const protocols = ["hermes", "pythonic", "xlam"];

describe("parseVariants", () => {
  it("as configured without --protocol; one format; a list; all with native first", () => {
    const gguf = { protocols, native: true, grammarApplies: true };
    expect(parseVariants(undefined, gguf)).toEqual([{}]);
    expect(parseVariants("hermes", gguf)).toEqual([{ protocol: "hermes", grammar: true }]);
    expect(parseVariants("native", gguf)).toEqual([{ protocol: "native" }]);
    expect(parseVariants("hermes,xlam", gguf).map(variantKey)).toEqual([
      "hermes+grammar",
      "hermes-grammar",
      "xlam+grammar",
      "xlam-grammar",
    ]);
    expect(parseVariants("all", gguf)).toHaveLength(1 + 2 * protocols.length);
    expect(parseVariants("all", { ...gguf, grammar: false }).map(variantKey)).toEqual([
      "native",
      "hermes-grammar",
      "pythonic-grammar",
      "xlam-grammar",
    ]);
  });

  it("has no grammar variants on a server and no native variant on a /v1/completions server", () => {
    expect(parseVariants("all", { protocols, native: false, grammarApplies: false }).map(variantKey)).toEqual(
      protocols,
    );
    expect(() => parseVariants("native", { protocols, native: false, grammarApplies: false })).toThrow(
      /no native tool calling/,
    );
    expect(() => parseVariants("hermes,hermez", { protocols, native: true, grammarApplies: false })).toThrow(
      /unknown protocol "hermez".*hermes, pythonic, xlam/,
    );
  });

  it("labels variants for people", () => {
    expect(variantLabel({ protocol: "native" })).toBe("native tools");
    expect(variantLabel({ protocol: "hermes", grammar: false })).toBe("hermes (no grammar)");
    expect(variantLabel({ protocol: "xlam" })).toBe("xlam");
  });
});
