import { getLlama, LlamaLogLevel } from "node-llama-cpp";
import { describe, expect, it } from "vitest";
import { withoutTrailingNewlines } from "../../src/models/llama/call-body-grammar.js";

describe("call-body grammar inside a call frame", () => {
  it("drops the newlines node-llama-cpp's JSON grammars demand after the document, so the frame can close at once", async () => {
    const llama = await getLlama({ gpu: false, build: "never", logLevel: LlamaLogLevel.error });
    const json = await llama.createGrammarForJsonSchema({
      type: "object",
      properties: { expression: { type: "string" } },
    });
    const root = (g: string) => g.split("\n").find((l) => l.startsWith("root ::="));
    expect(root(json.grammar)).toMatch(/"\\n\\n\\n\\n" \[\\n\]\*$/);
    const stripped = withoutTrailingNewlines(json.grammar);
    expect(root(stripped)).toMatch(/"\}"$/);
    // Only the root's tail changes: every other rule is kept as it was.
    expect(stripped.split("\n").slice(1)).toEqual(json.grammar.split("\n").slice(1));
  });
});
