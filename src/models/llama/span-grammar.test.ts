import type { LlamaGrammar } from "node-llama-cpp";
import { describe, expect, it } from "vitest";
import { loadGrammarTestModel } from "../../../test/helpers/grammar-accepts.js";
import { COPY_VALUE_NONEMPTY_RULE, COPY_VALUE_RULE, copySources, copyValueRules } from "./copy-grammar.js";
import { hasSpanWords, SPAN_VALUE_RULE, spanTexts, spanValueRules, spanWords } from "./span-grammar.js";

const grammars = loadGrammarTestModel();
const accepts = (grammar: LlamaGrammar, text: string) => grammars.accepts(grammar, text);

async function spanGrammar(texts: readonly string[]): Promise<LlamaGrammar> {
  return grammars.llama.createGrammar({ grammar: `root ::= ${SPAN_VALUE_RULE}\n${spanValueRules(texts)}` });
}

describe("span-copied string values", () => {
  it("read a text as words, with where a phrase may end", () => {
    const words = spanWords('search the web for "best hiking boots", then (maybe) stop…');
    expect(words.map((w) => w.core)).toEqual([
      "search",
      "the",
      "web",
      "for",
      "best",
      "hiking",
      "boots",
      "then",
      "maybe",
      "stop",
    ]);
    const ends = words.filter((w) => w.mayEnd).map((w) => w.core);
    // Before "the"/"for" (phrase starters), before a comma or closing bracket, at the end.
    expect(ends).toEqual(["search", "web", "boots", "maybe", "stop"]);
    expect(words[6]?.after).toBe('", ');
    // Punctuation standing alone closes the word before it.
    expect(spanWords("Lisbon ... now").map((w) => [w.core, w.mayEnd, w.after])).toEqual([
      ["Lisbon", true, " ... "],
      ["now", true, ""],
    ]);
  });

  it("hold a value to a whole span of the person's words, ended where a phrase may end", async () => {
    const grammar = await spanGrammar([
      "search the web for best hiking boots",
      "send an email to anna@example.com with the subject Lunch tomorrow",
      "book a table for 4 at Luigi's, please",
    ]);
    const ok = [
      '"best hiking boots"',
      '"hiking boots"',
      '"Best hiking boots"',
      '"Lunch tomorrow"',
      '"anna@example.com"',
      '"Luigi\'s"',
      '"the web"',
      '"for 4 at Luigi\'s"',
    ];
    const refused = [
      '"best"', // a phrase goes on: "hiking boots" follow
      '"best hiking"',
      '"Lunch"',
      '"boots hiking"', // words in the text's order only
      '"best  hiking boots"',
      '"best hiking boots."',
      '"Luigi"', // whole words
      '"Team Offsite"',
      '"Lunch Tomorrow"', // only the first word's case may change
      '"boots Lunch"', // one text at a time
      '""',
      '"Luigi\'s,"', // the comma closes the phrase; it is not part of it
    ];
    for (const text of ok) expect(accepts(grammar, text), text).toBe(true);
    for (const text of refused) expect(accepts(grammar, text), text).toBe(false);
  });

  it("copy quotes and backslashes as JSON escapes them", async () => {
    const grammar = await spanGrammar(['say "hi" to C:\\temp now']);
    expect(accepts(grammar, '"say \\"hi\\" to C:\\\\temp"')).toBe(true);
    expect(accepts(grammar, '"C:\\\\temp"')).toBe(true);
    expect(accepts(grammar, '"say "hi" to"')).toBe(false);
  });

  it("come from the person's messages and tool results, never the model's own turns", () => {
    const texts = spanTexts([
      { role: "system", content: "You are helpful." },
      { role: "user", content: "find podcasts about ancient history" },
      { role: "assistant", content: "invented words" },
      {
        role: "tool",
        callId: "c1",
        name: "lookup",
        result: { content: [{ type: "text", text: "id A-17" }] },
      },
    ]);
    expect(texts).toEqual(["find podcasts about ancient history", "id A-17"]);
    expect(hasSpanWords(texts)).toBe(true);
    expect(hasSpanWords(["?!", "  "])).toBe(false);
  });

  it("replace word-copied values when copySources is asked for spans and there are words to copy", async () => {
    const messages = [{ role: "user" as const, content: "books by Toni Morrison" }];
    const spans = copySources(messages, [], { spans: true });
    expect(spans.spans).toEqual(["books by Toni Morrison"]);
    const grammar = await grammars.llama.createGrammar({
      grammar: `root ::= ${COPY_VALUE_RULE} | ${COPY_VALUE_NONEMPTY_RULE}\n${copyValueRules(spans, 8)}`,
    });
    expect(accepts(grammar, '"Toni Morrison"')).toBe(true);
    expect(accepts(grammar, '"Toni"')).toBe(false);
    // Words alone (the default) let the model stop after "Toni", or put the words in any order.
    const words = await grammars.llama.createGrammar({
      grammar: `root ::= ${COPY_VALUE_RULE}\n${copyValueRules(copySources(messages, []), 8)}`,
    });
    expect(accepts(words, '"Toni"')).toBe(true);
    expect(accepts(words, '"Morrison Toni"')).toBe(true);
    // Nothing to copy from: words as before.
    expect(copySources([{ role: "user", content: "?!" }], [], { spans: true }).spans).toBeUndefined();
  });
});
