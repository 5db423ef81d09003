import type { Tool } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { loadGrammarTestModel } from "../../../test/helpers/grammar-accepts.js";
import { getProtocol } from "../../protocols/protocol-registry.js";
import { callFrames, createCallBodyGrammar, prefixGbnfRules } from "./call-body-grammar.js";
import { chooseThreads } from "./choose-threads.js";
import { copySources } from "./copy-grammar.js";
import { toGbnfJsonSchema } from "./to-gbnf-json-schema.js";

const tools: Tool[] = [
  {
    name: "roll_dice",
    inputSchema: {
      type: "object",
      properties: { notation: { type: "string", maxLength: 100 } },
      required: ["notation"],
    },
  },
  { name: "get_time", inputSchema: { type: "object", properties: { tz: { type: "string" } } } },
];

describe("call frames and grammar pieces", () => {
  it("cuts each tool's hermes call around its arguments, so grammar output parses back to that call", () => {
    const protocol = getProtocol("hermes");
    const found = callFrames(protocol, tools)!;
    expect(found.marker).toBe("<tool_call>");
    for (const frame of found.frames) {
      const text = `${found.marker}${frame.before}{"notation": "1d6"}${frame.after}`;
      const parser = protocol.createParser({ tools });
      const all = [...parser.push(text), ...parser.end()];
      const end = all.find((e) => e.type === "call-end");
      expect(end?.type === "call-end" && end.call).toMatchObject({
        name: frame.name,
        arguments: { notation: "1d6" },
      });
    }
  });

  it("prefixes rule names but not literals or character classes", () => {
    const gbnf = 'root ::= "{" ws value "}"\nvalue ::= [a-z]+ "root"\nws ::= [ \\t]*';
    expect(prefixGbnfRules(gbnf, "t0-")).toBe(
      't0-root ::= "{" t0-ws t0-value "}"\nt0-value ::= [a-z]+ "root"\nt0-ws ::= [ \\t]*',
    );
  });

  it("keeps what the grammar can express and bounds strings for tiny models", () => {
    const schema = toGbnfJsonSchema(
      {
        type: "object",
        properties: {
          a: { type: "string", maxLength: 100, pattern: "x" },
          b: { type: ["integer", "null"] },
          c: { $ref: "#/$defs/C" },
        },
        required: ["a", "zzz"],
        $defs: { C: { enum: ["x", "y"] } },
      },
      { maxStringLength: 64 },
    );
    expect(schema).toEqual({
      type: "object",
      properties: {
        a: { type: "string", maxLength: 64 },
        b: { oneOf: [{ type: "integer" }, { type: "null" }] },
        c: { enum: ["x", "y"] },
      },
      required: ["a"],
      additionalProperties: false,
    });
  });

  it("chooses threads deliberately: 1 for tiny models, never more than the cores", () => {
    expect(chooseThreads(135_000, undefined, 2)).toBe(1);
    expect(chooseThreads(7_000_000_000, undefined, 8)).toBe(8);
    expect(chooseThreads(7_000_000_000, 64, 8)).toBe(8);
    expect(chooseThreads(135_000, 2, 8)).toBe(2);
  });
});

describe("copied strings in a call body", () => {
  const grammars = loadGrammarTestModel();
  const catalogue: Tool[] = [
    {
      name: "calculator",
      description: "Supports parentheses, percentages and sqrt.",
      inputSchema: {
        type: "object",
        properties: { expression: { type: "string" } },
        required: ["expression"],
      },
    },
    {
      name: "note_save",
      description: "Save a note.",
      inputSchema: { type: "object", properties: { content: { type: "string" } }, required: ["content"] },
    },
  ];

  it("hold each tool's strings to the conversation and that tool's own schema words", async () => {
    const protocol = getProtocol("hermes");
    const found = callFrames(protocol, catalogue)!;
    const copy = copySources(
      [{ role: "user", content: "keep in mind that my gym locker is purple" }],
      catalogue,
    );
    const grammar = await createCallBodyGrammar(grammars.llama, found.frames, catalogue, { copy });
    const call = (name: string, args: string) => {
      const frame = found.frames.find((f) => f.name === name)!;
      return `${frame.before}${args}${frame.after}`;
    };
    expect(grammars.accepts(grammar, call("note_save", '{"content": "my gym locker is purple"}'))).toBe(true);
    // "parentheses" is the calculator's word: a small model wrote it for an unseen "purple" while any schema's counted.
    expect(grammars.accepts(grammar, call("note_save", '{"content": "my gym locker is parentheses"}'))).toBe(
      false,
    );
    expect(grammars.accepts(grammar, call("calculator", '{"expression": "sqrt(16)"}'))).toBe(true);
    expect(grammars.accepts(grammar, call("calculator", '{"expression": "Save"}'))).toBe(false);
  });
});
