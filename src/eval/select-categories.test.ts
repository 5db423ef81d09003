import { describe, expect, it } from "vitest";
import { LIVE_CATEGORIES } from "./bfcl-dataset.js";
import { parseCategories } from "./select-categories.js";

describe("parseCategories", () => {
  it("reads names, BFCL's collections, short names and patterns, in BFCL's order, each once", () => {
    expect(parseCategories("irrelevance,simple,java,javascript")).toEqual([
      "simple_python",
      "simple_java",
      "simple_javascript",
      "irrelevance",
    ]);
    expect(parseCategories("live_*")).toEqual(LIVE_CATEGORIES);
    expect(parseCategories("live,live_simple")).toEqual(LIVE_CATEGORIES);
    expect(parseCategories("all")).toHaveLength(13);
    expect(parseCategories("non_python")).toEqual(["simple_java", "simple_javascript"]);
  });

  it("names what it does not know, and what it knows", () => {
    expect(() => parseCategories("simple,multi_turn_base")).toThrow(
      /Unknown BFCL category "multi_turn_base".*live_\*/,
    );
    expect(() => parseCategories("web_*")).toThrow(/Unknown BFCL category "web_\*"/);
    expect(() => parseCategories(" , ")).toThrow(/names no category/);
  });
});
