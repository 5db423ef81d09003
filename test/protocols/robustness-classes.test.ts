/**
 * The robustness classes of issue 17, one table-driven block per class. Each block runs (a) the corpus cases
 * tagged with its class (`"class": N` in test/fixtures/protocols/*.jsonl), one-shot and streamed, and (b) where
 * the class applies to every format, a table over the whole registry — so a format added later is covered, and
 * the tables below say what it must declare (see src/protocols/README.md, "What every format must do").
 */
import type { Tool } from "@modelcontextprotocol/server";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { collectParseResult, parseToolCalls } from "../../src/protocols/parse-tool-calls.js";
import type { ToolCallProtocol } from "../../src/protocols/protocol.js";
import { getProtocol, listProtocols } from "../../src/protocols/protocol-registry.js";
import type { ParseResult, ParserEvent } from "../../src/protocols/types.js";
import { loadProtocolFixtures, type ProtocolFixture } from "./load-protocol-fixtures.js";

const fixtures = [...loadProtocolFixtures().values()].flat();
const protocols = listProtocols();

const CLASSES: Record<number, string> = {
  1: "silent loss: no call or word is dropped without an error",
  2: "cut-off output: incomplete body truncated, complete body without its closer a call",
  3: "malformed tags recovered as the reference parsers do",
  4: "reasoning boundaries",
  5: "identifiers, and streaming equals one-shot",
  6: "linear time on adversarial input",
  7: "values without a schema",
};

function comparable(r: ParseResult) {
  return {
    calls: r.calls.map((c) => ({ name: c.name, arguments: c.arguments })),
    content: r.content,
    reasoning: r.reasoning,
    errors: r.errors.length,
    truncated: r.truncated,
  };
}

function streamed(p: ToolCallProtocol | string, text: string, sizes: number[], opts = {}): ParserEvent[] {
  const parser = (typeof p === "string" ? getProtocol(p) : p).createParser(opts);
  const events: ParserEvent[] = [];
  let i = 0;
  let k = 0;
  while (i < text.length) {
    const size = sizes[k++ % sizes.length]!;
    events.push(...parser.push(text.slice(i, i + size)));
    i += size;
  }
  events.push(...parser.end());
  return events;
}

const chunkings = fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 12 });

function checkCase(fx: ProtocolFixture): void {
  const opts = { tools: fx.tools, prefix: fx.prefix };
  const oneShot = parseToolCalls(fx.format, fx.text, opts);
  expect(comparable(oneShot)).toEqual({ ...fx.expected, truncated: fx.expected.truncated ?? false });
  fc.assert(
    fc.property(chunkings, (sizes) => {
      expect(comparable(collectParseResult(streamed(fx.format, fx.text, sizes, opts)))).toEqual(
        comparable(oneShot),
      );
    }),
    { numRuns: 60 },
  );
}

/** Prose that is no call in any format: it must come out byte for byte (content events joined, untrimmed). */
const PROSE = [
  "I think [this] is f(x) and [g(y)] maybe (really) [a, b].",
  "See [1] and [foo(bar)] here, or [x] (y) {z}.",
  'Example:\n```json\n{"a": 1, "b": [2, 3]}\n```\ndone',
  'Use {"query": "x"} as the body; {a: 1} is not JSON.',
  "Compare 3 < 4 and 5 > 2, <b>bold</b> & <i>it</i>.",
  "The list is [1, 2, 3] and the call print(x) prints it.",
  "```python\nprint([f(1), g(2)])\n```",
  "Unbalanced ( [ { here",
  "A path C:\\Users\\x and a regex [a-z]+(?=\\d).",
  'A person: ```json\n{"name": "Alice", "age": 3}\n```',
];

/**
 * Per format: the markup after the last argument of a rendered call — what a cut-off output may lack while the
 * call still counts (class 2). "" when the body itself ends the call. Every registered format needs an entry.
 */
const CLOSERS: Record<string, string> = {
  tag_tool: "\n</tool>",
  json_tool_calls: "]}",
  jsonl_events: "",
  hermes: "\n</tool_call>",
  llamacpp_generic: "]}",
  llama3_json: "",
  pythonic: "]",
  node_llama_cpp_functionary: ")",
  phi4_mini: "<|/tool_call|>",
  command_r7b: "\n]<|END_ACTION|>",
  deepseek_r1: "\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
  deepseek_v3_1: "<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
  granite: "]",
  gpt_oss_harmony: "<|call|>",
  qwen3_coder_xml: "\n</function>\n</tool_call>",
  glm45: "\n</tool_call>",
  minimax_m2: "\n</invoke>\n</minimax:tool_call>",
  kimi_k2: "<|tool_call_end|><|tool_calls_section_end|>",
  llama3_builtin: "",
  gemma3_tool_code: "\n```",
  gemma3_json: "",
  mistral_v3: "]",
  mistral_v11: "",
  functionary_v3_1: "</function>",
  functionary_v3_2: "",
  firefunction_v2: "]",
  gemma4: "<tool_call|>",
  functiongemma: "<end_function_call>",
  seed_oss: "\n</function>\n</seed:tool_call>",
  deepseek_v3_2: "\n</｜DSML｜invoke>\n</｜DSML｜function_calls>",
  nemotron_nano_v2: "]</TOOLCALL>",
  lfm2: "]<|tool_call_end|>",
  apertus: "]<|tools_suffix|>",
  xlam: "]",
  hunyuan_a13b: "]</tool_calls>",
  ernie45: "\n</tool_call>",
};

const TOOLS: Tool[] = [
  {
    name: "get_weather",
    inputSchema: {
      type: "object" as const,
      properties: { city: { type: "string" }, days: { type: "integer" } },
    },
  },
];
const WRITE_READ: Tool[] = [
  { name: "write", inputSchema: { type: "object" as const, properties: { text: { type: "string" } } } },
  { name: "read", inputSchema: { type: "object" as const, properties: { path: { type: "string" } } } },
];
const CALL = { id: "call_1", name: "get_weather", arguments: { city: "Paris", days: 3 } };
const SECOND = { id: "call_2", name: "get_weather", arguments: { city: "Oslo", days: 1 } };

/** One-shot, then streamed in 1-character and mixed chunks: every result must be `want`. */
function expectEverywhere(p: ToolCallProtocol, text: string, want: ReturnType<typeof comparable>): void {
  for (const sizes of [[text.length], [1], [3, 1, 7]]) {
    const r = collectParseResult(streamed(p, text, sizes, { tools: TOOLS }));
    expect({ text, sizes, got: comparable(r) }).toEqual({ text, sizes, got: want });
  }
}

for (const [n, title] of Object.entries(CLASSES)) {
  const cls = Number(n);
  describe(`class ${cls}: ${title}`, () => {
    const cases = fixtures.filter((f) => f.class === cls);
    it("has corpus cases", () => {
      expect(cases.length).toBeGreaterThan(0);
    });
    it.each(cases.map((fx) => [fx.id, fx] as const))("%s (one-shot and streamed)", (_id, fx) => {
      checkCase(fx);
    });

    if (cls === 1) {
      it.each(protocols.map((p) => [p.id, p] as const))(
        "%s: prose with brackets, parentheses, fences and JSON comes out exactly as written",
        (_id, p) => {
          for (const text of PROSE) {
            for (const sizes of [[text.length], [1], [3, 1, 7]]) {
              const events = streamed(p, text, sizes);
              const content = events.flatMap((e) => (e.type === "content" ? [e.text] : [])).join("");
              expect({ text, content, other: events.filter((e) => e.type !== "content") }).toEqual({
                text,
                content: text,
                other: [],
              });
            }
          }
        },
      );

      it.each(protocols.map((p) => [p.id, p] as const))(
        "%s: a string argument holding the format's own markup keeps both calls",
        (_id, p) => {
          const closers = CLOSERS[p.id] ? [CLOSERS[p.id]!.trim()] : [];
          const markup = [...p.callStartMarkers, ...closers];
          for (const m of markup) {
            const calls = [
              { id: "call_1", name: "write", arguments: { text: `a ${m} b` } },
              { id: "call_2", name: "read", arguments: { path: "x" } },
            ];
            const r = parseToolCalls(p, p.renderAssistantTurn({ calls }), { tools: WRITE_READ });
            expect({ m, calls: comparable(r).calls, errors: r.errors }).toEqual({
              m,
              calls: calls.map((c) => ({ name: c.name, arguments: c.arguments })),
              errors: [],
            });
          }
        },
      );
    }

    if (cls === 2) {
      it("every registered format declares its closers here", () => {
        expect(protocols.map((p) => p.id).filter((id) => !(id in CLOSERS))).toEqual([]);
      });

      it.each(protocols.filter((p) => p.id in CLOSERS).map((p) => [p.id, p] as const))(
        "%s: without its closing markup the call stands; cut inside its body it is never a call",
        (_id, p) => {
          const full = p.renderAssistantTurn({ calls: [CALL] }).trimEnd();
          const closer = CLOSERS[p.id]!;
          expect(full.endsWith(closer)).toBe(true);
          const want = [{ name: CALL.name, arguments: CALL.arguments }];
          // every whole-token cut of the closers (the output stopped before them)
          for (let k = 0; k <= closer.length; k++) {
            const cut = full.slice(0, full.length - k);
            if (k > 0 && !/^\s*(<|\]|\)|`|\})/.test(closer.slice(closer.length - k))) continue;
            const r = parseToolCalls(p, cut, { tools: TOOLS });
            expect({ cut, calls: comparable(r).calls, truncated: r.truncated }).toEqual({
              cut,
              calls: want,
              truncated: false,
            });
          }
          // every cut inside the body: never a call with a value cut short. In XML-ish formats a cut between two
          // parameters looks exactly like a call with fewer (the reference parsers take it as one too); a JSON
          // body cut anywhere is never a call.
          const bodyEnd = full.length - closer.length;
          for (let k = 1; k < bodyEnd; k++) {
            const cut = full.slice(0, k).trimEnd();
            if (cut.length === bodyEnd) continue; // only whitespace was cut
            const r = parseToolCalls(p, cut, { tools: TOOLS });
            const calls = r.calls.map((c) => ({ name: c.name, arguments: c.arguments }));
            const fewerParams =
              p.callBody === "text" &&
              calls.length === 1 &&
              calls[0]!.name === CALL.name &&
              Object.entries(calls[0]!.arguments).every(
                ([key, v]) => (CALL.arguments as Record<string, unknown>)[key] === v,
              );
            expect({ cut, calls: fewerParams ? [] : calls }).toEqual({ cut, calls: [] });
          }
        },
      );
    }

    if (cls === 2) {
      it.each(protocols.map((p) => [p.id, p] as const))(
        "%s: a complete call followed by one cut off keeps the first and reports the second truncated",
        (_id, p) => {
          const full = p.renderAssistantTurn({ calls: [CALL, SECOND] });
          const at = full.lastIndexOf("Oslo");
          const first = { name: CALL.name, arguments: CALL.arguments };
          // cut inside the second call's string value: `… get_weather(city="Os`
          for (let k = at; k < at + 4; k++) {
            expectEverywhere(p, full.slice(0, k), {
              calls: [first],
              content: "",
              reasoning: "",
              errors: 0,
              truncated: true,
            });
          }
        },
      );

      it.each([
        ["pythonic", '[get_weather(city="Paris", days=3), get_weather('],
        ["pythonic", '[get_weather(city="Paris", days=3), get_weather(city="Os'],
        ["pythonic", '<|python_start|>get_weather(city="Paris", days=3), get_weather(city='],
        ["lfm2", '<|tool_call_start|>[get_weather(city="Paris", days=3), get_weather('],
        [
          "granite",
          '<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}, {"name": "get_',
        ],
        [
          "mistral_v3",
          '[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}, {"na',
        ],
        [
          "json_tool_calls",
          '{"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}, {',
        ],
      ] as const)("%s: %s keeps the complete call", (id, text) => {
        expectEverywhere(getProtocol(id), text, {
          calls: [{ name: CALL.name, arguments: CALL.arguments }],
          content: "",
          reasoning: "",
          errors: 0,
          truncated: true,
        });
      });
    }

    if (cls === 3) {
      // Formats whose calls end in a closing tag: that tag repeated after the calls, or its start at the end of
      // output (`</tool`), is markup — never content; prose after a stray tag still is.
      it.each(protocols.filter((p) => CLOSERS[p.id]?.includes("<")).map((p) => [p.id, p] as const))(
        "%s: a stray closing tag after a complete call list is not content",
        (_id, p) => {
          const full = p.renderAssistantTurn({ calls: [CALL, SECOND] }).trimEnd();
          const closer = CLOSERS[p.id]!;
          const tag = closer.slice(closer.lastIndexOf("<"));
          const want = {
            calls: [CALL, SECOND].map((c) => ({ name: c.name, arguments: c.arguments })),
            content: "",
            reasoning: "",
            errors: 0,
            truncated: false,
          };
          const strays = [tag, `${tag}\n${tag}`, `${tag}${tag.slice(0, 3)}`];
          for (let k = 1; k < tag.length; k++) strays.push(tag.slice(0, k));
          for (const stray of strays) {
            for (const sep of ["", "\n"]) expectEverywhere(p, full + sep + stray, want);
          }
          expectEverywhere(p, `${full}\n${tag}\nDone.`, { ...want, content: "Done." });
        },
      );

      // A closing tag that closes nothing is markup too, wherever it stands (issue 29: the bundled demo model
      // answered `…"tags":[]}}\n</tool_call>` after a note_save call, and the tag reached the chat screen).
      it.each(protocols.filter((p) => CLOSERS[p.id]?.includes("<")).map((p) => [p.id, p] as const))(
        "%s: a closing tag with no call before it, or after a body that could not be read, is not content",
        (_id, p) => {
          const closer = CLOSERS[p.id]!;
          const tag = closer.slice(closer.lastIndexOf("<"));
          const prose = { calls: [], reasoning: "", errors: 0, truncated: false };
          const cases: Array<[string, string]> = [
            [`Hi there.${tag}`, "Hi there."],
            [`Hi there.\n${tag}`, "Hi there."],
            [`${tag}Hi there.`, "Hi there."],
            [`${tag}${tag}\n${tag}`, ""],
            [`A <b>bold</b> word ${tag}, and more.`, "A <b>bold</b> word , and more."],
            [
              `Saved note #1 "s code","content":"my I c, ","tags":[]}}\n${tag}`,
              `Saved note #1 "s code","content":"my I c, ","tags":[]}}`,
            ],
          ];
          for (const [text, content] of cases) expectEverywhere(p, text, { ...prose, content });
          // After an opener whose body is no JSON call (a mention, an error, or a code call in formats that have one),
          // the closer is never text.
          for (const opener of p.callStartMarkers) {
            const text = `${opener}\nnot a call at all\n${tag}\nDone.`;
            const oneShot = parseToolCalls(p, text, { tools: TOOLS });
            expect({
              text,
              content: oneShot.content,
              closerShown: oneShot.content.includes(tag),
            }).toMatchObject({
              text,
              closerShown: false,
            });
            expectEverywhere(p, text, comparable(oneShot));
          }
        },
      );
    }

    if (cls === 5) {
      const corpusTexts = fixtures.map((f) => [f.format, f.text, f.tools, f.prefix] as const);
      const MARKUP = ["<", ">", "</", "{", "}", '"', "\n", " ", "[", "]", "<|", "|>", "```", ":"];
      it("streaming equals one-shot for mutated corpus outputs in every format, chunked 1–7 characters", () => {
        fc.assert(
          fc.property(
            fc.constantFrom(...corpusTexts),
            fc.array(fc.tuple(fc.nat(), fc.nat({ max: 3 }), fc.constantFrom(...MARKUP)), { maxLength: 3 }),
            chunkings,
            ([format, text, tools, prefix], edits, sizes) => {
              let t = text;
              for (const [at, del, ins] of edits) {
                const i = at % (t.length + 1);
                t = t.slice(0, i) + ins + t.slice(i + del);
              }
              const opts = { tools, prefix };
              expect(comparable(collectParseResult(streamed(format, t, sizes, opts)))).toEqual(
                comparable(parseToolCalls(format, t, opts)),
              );
            },
          ),
          { numRuns: 3000 },
        );
      }, 60_000);
    }

    if (cls === 6) {
      it.each(protocols.map((p) => [p.id, p] as const))(
        "%s: runs of its call markers, `{`, `[` and `<` cost linear time",
        (_id, p) => {
          const units = [...p.callStartMarkers, "{", "[", "<"];
          const parseOnce = (text: string) => {
            const parser = p.createParser();
            for (let k = 0; k < text.length; k += 3) parser.push(text.slice(k, k + 3));
            parser.end();
          };
          // CPU time of this process per parse (other test files running meanwhile do not count), repeated until
          // at least 40 ms were spent: a single parse of a cheap unit takes ~3 ms, where one GC pause decides the ratio.
          const time = (unit: string, size: number) => {
            const text = unit.repeat(Math.ceil(size / unit.length));
            const t0 = process.cpuUsage();
            let runs = 0;
            let spent = 0;
            do {
              parseOnce(text);
              runs++;
              const t = process.cpuUsage(t0);
              spent = (t.user + t.system) / 1000;
            } while (spent < 40);
            return spent / runs;
          };
          for (const unit of units) {
            time(unit, 200_000); // warm-up (JIT tiers)
            const small = Math.min(time(unit, 200_000), time(unit, 200_000), time(unit, 200_000));
            const large = Math.min(time(unit, 800_000), time(unit, 800_000));
            // 4× the text: a quadratic parser takes ~16×; the bound leaves room for a busy machine.
            expect({
              unit,
              ratio: large / Math.max(small, 1),
              slow: large / Math.max(small, 1) > 10,
            }).toMatchObject({
              unit,
              slow: false,
            });
          }
        },
        60_000,
      );
    }
  });
}
