import { describe, expect, it } from "vitest";
import type { MemoryStore } from "../core/memory-store.js";
import { createBuiltinTools } from "../tools/builtin/index.js";
import { createMemoryTools } from "../tools/builtin/memory.js";
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
    expect(firstSentence("Reads the whole of a long file from the start to its very end", 30)).toBe(
      "Reads the whole of a long…",
    );
    expect(firstSentence(undefined)).toBe("");
  });
});

describe("chat's /tools list", () => {
  it("shows time_difference's description up to its examples, not cut in the middle", () => {
    const tool = createBuiltinTools().find((d) => d.tool.name === "time_difference");
    expect(firstSentence(tool?.tool.description)).toBe("How much time lies between two instants or dates.");
  });

  it("cuts no built-in tool's description with …", () => {
    const tools = [
      ...createBuiltinTools({ filesystem: { roots: [process.cwd()], allowWrites: true } }),
      // Descriptions only: the store is not touched until a call.
      ...createMemoryTools({} as MemoryStore),
    ];
    const cut = tools
      .map((d) => `${d.tool.name}: ${firstSentence(d.tool.description)}`)
      .filter((l) => l.endsWith("…"));
    expect(cut).toEqual([]);
  });
});
