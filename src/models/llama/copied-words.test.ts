import type { Tool } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import type { AgentMessage } from "../../core/agent-message.js";
import { CopiedWords } from "./copied-words.js";

const memorySearch: Tool = {
  name: "memory_search",
  description: "Full-text search over earlier conversations and saved notes.",
  inputSchema: {
    type: "object",
    properties: { query: { type: "string", description: "keywords to look for" } },
  },
};

const call = { id: "c1", name: "memory_search", arguments: { query: "bike lock" } };
const result = (text: string): AgentMessage => ({
  role: "tool",
  callId: "c1",
  name: "memory_search",
  result: { content: [{ type: "text", text }] },
});
const turn = (...results: string[]): AgentMessage[] => [
  { role: "system", content: "You are a helpful assistant." },
  { role: "user", content: "what is my bike lock code?" },
  { role: "assistant", content: "", toolCalls: [call] },
  ...results.map(result),
];

/** What an answer becomes when the model writes `text` and stops at the first trigger it meets. */
function finish(copied: CopiedWords, text: string): string {
  for (let i = 0; i < text.length; i++)
    for (const trigger of copied.triggers(false))
      if (text.startsWith(trigger, i)) return text.slice(0, i) + trigger + copied.begin(trigger)?.rest;
  return text;
}

describe("copied words: an answer finishes the tool result's words it begins", () => {
  it("finishes a value from the result once the model has begun it after a space", () => {
    const copied = CopiedWords.from(turn('1. note #1 "bike lock code": my bike lock code is plinth3390'), [
      memorySearch,
    ]);
    expect(copied).toBeDefined();
    if (!copied) return;
    expect(finish(copied, "From your notes: my bike lock code is plied3390.")).toBe(
      "From your notes: my bike lock code is plinth3390",
    );
    expect(copied.begin(" pli")).toEqual({ rest: "nth3390", closer: "" });
    expect(copied.begin('"pli')).toEqual({ rest: "nth3390", closer: '"' });
    expect(copied.begin("(pli")).toEqual({ rest: "nth3390", closer: ")" });
  });

  it("finishes a word the answer begins with, but not the same letters inside a word", () => {
    const copied = CopiedWords.from(turn("Europe/Sofia: 3:32 AM GMT+2"), [memorySearch]);
    if (!copied) throw new Error("expected held words");
    expect(copied.triggers(false)).not.toContain("Eur");
    expect(copied.triggers(true)).toContain("Eur");
    expect(copied.begin("Eur", "")?.rest).toBe("ope/Sofia");
    expect(copied.begin("Eur", " \n")?.rest).toBe("ope/Sofia");
    expect(copied.begin("Eur", "Neo")).toBeUndefined();
    expect(copied.begin(" Eur", "In")?.rest).toBe("ope/Sofia");
    // Where a bare prefix and a bounded one end at the same place, either may be reported.
    expect(copied.begin("Eur", "It's 3 AM in ")?.rest).toBe("ope/Sofia");
    expect(copied.begin("Eur", "It's 3 AM in (")).toEqual({ rest: "ope/Sofia", closer: ")" });
  });

  it("holds codes, zones and names only: no plain word, no word the model's own prompt uses, nothing mid-word", () => {
    const copied = CopiedWords.from(
      turn("1. note #1 (Full notes): my code is plinth3390, ask Kowalski in Europe/Belgrade or Ana"),
      [memorySearch],
    );
    if (!copied) throw new Error("expected held words");
    // "note", "code" are plain words; "Full" is the tool description's; "Ana", "my", "is" are too short.
    expect(new Set(copied.triggers(false).map((t) => t.slice(1)))).toEqual(new Set(["pli", "Kow", "Eur"]));
    expect(finish(copied, "nothing in your notes")).toBe("nothing in your notes");
    expect(finish(copied, "applied")).toBe("applied");
    expect(finish(copied, "ask Kowa")).toBe("ask Kowalski");
    expect(finish(copied, "(Europe/Be")).toBe("(Europe/Belgrade");
  });

  it("holds no number: a decimal's digits after the point are no word the model begins", () => {
    expect(CopiedWords.from(turn("333.33333333333"), [memorySearch])).toBeUndefined();
    const dice = CopiedWords.from(turn("Rolled 4d6dl1: [6, 5, 5, 3] → kept [6, 5, 5] = 16"), [memorySearch]);
    expect(dice?.begin(" 4d6")?.rest).toBe("dl1");
  });

  it("waits until the prefix is one word's only: zones sharing their region, a word inside a longer one", () => {
    const copied = CopiedWords.from(
      turn("America/Caracas: 9:00 PM; America/Bogota: 8:00 PM", "Pledge: Plinth, Plinths, Plinth3390"),
      [memorySearch],
    );
    if (!copied) throw new Error("expected held words");
    expect(finish(copied, "It is 9 PM in America/Cacagos.")).toBe("It is 9 PM in America/Caracas");
    expect(finish(copied, "and America/Bog")).toBe("and America/Bogota");
    // "America/" alone is both zones' beginning: nothing is added yet.
    expect(finish(copied, "in America/")).toBe("in America/");
    expect(finish(copied, "the Plinth3")).toBe("the Plinth3390");
    // "Plinth" is the beginning of two other words, so it is never held.
    expect(copied.triggers(false).some((t) => t.endsWith("Plinth"))).toBe(false);
    expect(finish(copied, "a Ple")).toBe("a Pledge");
  });

  it("finishes a name from the request being answered, once a tool has answered it", () => {
    const messages: AgentMessage[] = [
      { role: "user", content: "what time is it in Caracas?" },
      { role: "assistant", content: "", toolCalls: [{ ...call, name: "get_time" }] },
      result("Friday, December 4, 2026 at 9:22 PM GMT-4"),
    ];
    const copied = CopiedWords.from(messages, []);
    if (!copied) throw new Error("expected held words");
    expect(finish(copied, "It's 9:22 PM in Caracao.")).toBe("It's 9:22 PM in Caracas");
    expect(finish(copied, "It's Fri")).toBe("It's Friday");
  });

  it("reads only the results since the latest request, and none when there are none", () => {
    const earlier = turn("my code is plinth3390");
    expect(CopiedWords.from(earlier, [memorySearch])).toBeDefined();
    expect(
      CopiedWords.from([...earlier, { role: "user", content: "thanks!" }], [memorySearch]),
    ).toBeUndefined();
    expect(CopiedWords.from([{ role: "user", content: "hello" }], [])).toBeUndefined();
    // A result of only the model's own words holds nothing.
    expect(CopiedWords.from(turn("Full notes, saved"), [memorySearch])).toBeUndefined();
  });
});
