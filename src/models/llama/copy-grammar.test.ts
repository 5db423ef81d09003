import type { LlamaGrammar } from "node-llama-cpp";
import { describe, expect, it } from "vitest";
import { loadGrammarTestModel } from "../../../test/helpers/grammar-accepts.js";
import {
  COPY_VALUE_NONEMPTY_RULE,
  COPY_VALUE_RULE,
  copySources,
  copyValueRules,
  toolCopyValueRule,
} from "./copy-grammar.js";

const grammars = loadGrammarTestModel();
const accepts = (grammar: LlamaGrammar, text: string) => grammars.accepts(grammar, text);

const sources = copySources(
  [
    {
      role: "user",
      content: "18% tip on a 64 dollar bill? And remember my locker code is 4471, colour purple.",
    },
    { role: "assistant", content: "invented 999 words" },
    {
      role: "tool",
      callId: "c1",
      name: "get_time",
      result: { content: [{ type: "text", text: "Friday, November 27, 2026" }] },
    },
  ],
  [
    {
      name: "time_difference",
      description: 'From "2025-01-01" to "now".',
      inputSchema: {
        type: "object",
        properties: {
          to: { type: "string", description: "End date" },
          unit: { type: "string", enum: ["days", "weeks"] },
        },
      },
    },
  ],
);

describe("copy-constrained string values", () => {
  it("take words from user text, tool results and the prose of tool schemas, never from the model's own turns", () => {
    expect(sources.words).toEqual(expect.arrayContaining(["purple", "locker", "Friday"]));
    // A tool's schema words are its own: they serve its arguments, not another tool's.
    expect(sources.schemaWords?.time_difference).toEqual(
      expect.arrayContaining(["now", "End", "date", "weeks"]),
    );
    expect(sources.words).not.toContain("weeks");
    // A schema's keywords are no value anyone means.
    for (const keyword of ["type", "properties", "string", "object", "enum"])
      expect([...sources.words, ...(sources.schemaWords?.time_difference ?? [])]).not.toContain(keyword);
    expect(sources.words).not.toContain("invented");
    expect(sources.numbers).toEqual(["2025", "2026", "4471"]);
  });

  for (const maxItems of [undefined, 32]) {
    it(`hold words and long numbers to the sources, free what is new (${maxItems ?? "unbounded"})`, async () => {
      const grammar = await grammars.llama.createGrammar({
        grammar: `root ::= ${COPY_VALUE_RULE}\n${copyValueRules(sources, maxItems)}`,
      });
      const ok = [
        '"my locker code is 4471"',
        '"purple"',
        '"Purple"',
        '"18% * 64"',
        '"64 * 0.18"',
        '"2026-12-25"',
        '"now"',
        // Function words are free: a note's text needs them where the request has none.
        '"18% of 64"',
        '"the locker code is 4471"',
        '""',
        '"a \\"tip\\""',
      ];
      const refused = [
        '"pUrple"',
        '"pflip"',
        '"pur"',
        '"purplepurple"',
        '"18% * 664"',
        '"18% off 64"',
        '"4417"',
        '"invented"',
        '"Vilnius"',
      ];
      for (const text of ok) expect(accepts(grammar, text), text).toBe(true);
      for (const text of refused) expect(accepts(grammar, text), text).toBe(false);
    });
  }

  it("give each tool's strings its own schema's words only: a note never takes a word of another tool's description", async () => {
    const two = copySources(
      [{ role: "user", content: "keep in mind that my gym locker is purple" }],
      [
        {
          name: "calculator",
          description: "Supports parentheses and sqrt.",
          inputSchema: { type: "object" },
        },
        { name: "note_save", description: "Save a note.", inputSchema: { type: "object" } },
      ],
    );
    const grammar = await grammars.llama.createGrammar({
      grammar: `root ::= "c:" ${toolCopyValueRule(0)} | "n:" ${toolCopyValueRule(1)} | "any:" ${COPY_VALUE_RULE}\n${copyValueRules(two, 16, ["calculator", "note_save"])}`,
    });
    expect(accepts(grammar, 'n:"my gym locker is purple"')).toBe(true);
    expect(accepts(grammar, 'n:"my gym locker is parentheses"')).toBe(false);
    expect(accepts(grammar, 'n:"Save purple"')).toBe(true);
    expect(accepts(grammar, 'c:"sqrt(16) in parentheses"')).toBe(true);
    expect(accepts(grammar, 'c:"Save"')).toBe(false);
    // The rule without a tool (a caller that does not say which) takes every schema's words, as before.
    expect(accepts(grammar, 'any:"parentheses"')).toBe(true);
  });

  it("take the pieces of a schema word that turns to capitals: a placeholder's letters are a word of their own", async () => {
    const dice = copySources(
      [{ role: "user", content: "give me a roll of 2d20 and keep the lowest 1" }],
      [
        {
          name: "roll_dice",
          description: "NdS rolls N dice with S sides; khN / klN keep the N highest / lowest (4d6kh3).",
          inputSchema: { type: "object" },
        },
      ],
    );
    expect(dice.schemaWords?.roll_dice).toEqual(expect.arrayContaining(["klN", "kl", "kh", "Nd"]));
    const grammar = await grammars.llama.createGrammar({
      grammar: `root ::= ${toolCopyValueRule(0)}\n${copyValueRules(dice, 16, ["roll_dice"])}`,
    });
    // Before, "kl" was no word of any source: the grammar let a model that wrote it finish only as "klN".
    expect(accepts(grammar, '"2d20kl1"')).toBe(true);
    expect(accepts(grammar, '"2d20klN"')).toBe(true);
    expect(accepts(grammar, '"2d20kq1"')).toBe(false);
    expect(accepts(grammar, '"2d20k1"')).toBe(false);
  });

  it("hold a tiny model's characters outside ASCII to the conversation's, and leave a larger model's free", async () => {
    const messages = [{ role: "user" as const, content: "the tank holds 15 m³ at 20°C" }];
    const grammarOf = async (copiedCharacters: boolean) =>
      grammars.llama.createGrammar({
        grammar: `root ::= ${COPY_VALUE_RULE}\n${copyValueRules(copySources(messages, [], { copiedCharacters }))}`,
      });
    const tiny = await grammarOf(true);
    expect(copySources(messages, [], { copiedCharacters: true }).characters).toEqual(["°", "³"]);
    for (const text of ['"15 m³"', '"20°C"', '"tank: 15 m³ (20°C)!"', '"[tank] {15} ~m³_`@#$%&^"'])
      expect(accepts(tiny, text), text).toBe(true);
    for (const text of ['"15 m²"', '"tank → 15"', '"20 ℃"']) expect(accepts(tiny, text), text).toBe(false);
    const larger = await grammarOf(false);
    for (const text of ['"15 m²"', '"tank → 15"', '"東京"']) expect(accepts(larger, text), text).toBe(true);
  });

  it("bounds the runs of a value, and has a non-empty form for minLength", async () => {
    const bounded = await grammars.llama.createGrammar({
      grammar: `root ::= ${COPY_VALUE_RULE}\n${copyValueRules(sources, 4)}`,
    });
    expect(accepts(bounded, '"my locker"')).toBe(true); // my, space, locker: three runs
    expect(accepts(bounded, '"my locker code"')).toBe(false);
    const nonEmpty = await grammars.llama.createGrammar({
      grammar: `root ::= ${COPY_VALUE_NONEMPTY_RULE}\n${copyValueRules(sources)}`,
    });
    expect(accepts(nonEmpty, '""')).toBe(false);
    expect(accepts(nonEmpty, '"tip"')).toBe(true);
  });
});

describe("zones a time-zone argument is held to", () => {
  const ask = (...contents: string[]) =>
    contents.flatMap((content) => [
      { role: "user" as const, content },
      { role: "assistant" as const, content: "Tokyo? Paris?" },
    ]);
  it("are those the requests name, when the latest names one: a follow-up keeps the zone named before it", () => {
    expect(copySources(ask("3pm in New York is what in London?", "and to Tokyo?"), []).zones).toEqual([
      "America/New_York",
      "Asia/Tokyo",
      "Europe/London",
    ]);
  });
  it("are named by a city written with its own letters, as the tz database spells it without them", () => {
    // Before accents were folded, the bundled model answered "time in Ürümqi please" with Asia/Jakarta.
    expect(copySources(ask("time in Ürümqi please"), []).zones).toEqual(["Asia/Urumqi"]);
    expect(copySources(ask("convert 14:00 from Santarém to Mazatlán"), []).zones).toEqual([
      "America/Mazatlan",
      "America/Santarem",
    ]);
  });
  it("are free when the latest request names none, whatever earlier ones or the model's own turns named", () => {
    expect(
      copySources(ask("time in Europe/Belgrade?", "how many days until christmas?"), []).zones,
    ).toBeUndefined();
  });
});
