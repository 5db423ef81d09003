/**
 * Seeded model output for the benches that read tool calls out of streamed text (bench:parse-stream,
 * bench:ai-sdk-middleware): ~1 MB of prose paragraphs with Hermes `<tool_call>` calls among them (some with long
 * string arguments full of escaped quotes, newlines and unicode), one call with a large argument, and the 1–4
 * character chunks a tokenizer would stream. The same seed gives the same bytes, in every bench.
 */
import type { Tool } from "@modelcontextprotocol/server";

/** mulberry32: small, fast, good enough for reproducible text. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  "the a of to and in that is for it with as was on be by this are from at or an which have not but " +
  "weather forecast city temperature query result file directory function argument value model tool call " +
  "response request stream parser token chunk output input schema server client message user assistant " +
  "system search document index page section table column row report summary analysis data set number " +
  "café naïve résumé über façade Zürich São Paulo 東京 서울 Москва Ελλάδα"
).split(" ");
const PUNCT = [".", ".", ".", "?", "!", ";", ":"];
const ASIDES = [
  " (see `config.json`)",
  " — roughly 3 < 4 —",
  ' "as quoted"',
  " e.g. {a: 1}",
  " 😀",
  " <b>note</b>",
  " 12.5%",
  " [link](https://example.com/a?b=c)",
];

export type Rng = () => number;
const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)]!;
const int = (rng: Rng, lo: number, hi: number): number => lo + Math.floor(rng() * (hi - lo + 1));

export function sentence(rng: Rng): string {
  const n = int(rng, 5, 22);
  const words: string[] = [];
  for (let i = 0; i < n; i++) words.push(pick(rng, WORDS));
  let s = words.join(" ");
  s = s[0]!.toUpperCase() + s.slice(1);
  if (rng() < 0.25) s += pick(rng, ASIDES);
  return s + pick(rng, PUNCT);
}

export function paragraph(rng: Rng): string {
  const n = int(rng, 2, 9);
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(sentence(rng));
  return out.join(" ");
}

/** A long string argument: code-like lines with quotes, backslashes, tabs, newlines, unicode. */
export function longString(rng: Rng, length: number): string {
  const parts: string[] = [];
  let len = 0;
  while (len < length) {
    const r = rng();
    const piece =
      r < 0.3
        ? `const s${int(rng, 0, 99)} = "${sentence(rng)}";\n`
        : r < 0.45
          ? `\tpath = "C:\\\\Users\\\\${pick(rng, WORDS)}\\\\file.txt"\n`
          : r < 0.6
            ? `// ${pick(rng, WORDS)} → ${pick(rng, WORDS)} ✓ 😀 “smart quotes”\n`
            : `${paragraph(rng)}\n\n`;
    parts.push(piece);
    len += piece.length;
  }
  return parts.join("").slice(0, length);
}

export interface BenchCall {
  name: string;
  arguments: Record<string, unknown>;
}

export const BENCH_TOOLS: Tool[] = [
  {
    name: "get_weather",
    description: "Current weather for a city.",
    inputSchema: {
      type: "object",
      properties: { city: { type: "string" }, unit: { type: "string", enum: ["celsius", "fahrenheit"] } },
      required: ["city"],
    },
  },
  {
    name: "search_docs",
    description: "Full-text search over the documentation.",
    inputSchema: {
      type: "object",
      properties: {
        query: { type: "string" },
        limit: { type: "integer" },
        tags: { type: "array", items: { type: "string" } },
      },
      required: ["query"],
    },
  },
  {
    name: "write_file",
    description: "Writes a text file.",
    inputSchema: {
      type: "object",
      properties: { path: { type: "string" }, content: { type: "string" } },
      required: ["path", "content"],
    },
  },
  {
    name: "send_message",
    description: "Sends a message.",
    inputSchema: {
      type: "object",
      properties: { to: { type: "string" }, subject: { type: "string" }, body: { type: "string" } },
      required: ["to", "body"],
    },
  },
];

function makeCall(rng: Rng, longArguments: boolean): BenchCall {
  const r = rng();
  if (r < 0.1) {
    return {
      name: "write_file",
      arguments: {
        path: `src/${pick(rng, WORDS)}.ts`,
        content: longArguments ? longString(rng, int(rng, 1000, 8000)) : sentence(rng),
      },
    };
  }
  if (r < 0.4) {
    return {
      name: "get_weather",
      arguments: { city: pick(rng, WORDS), unit: rng() < 0.5 ? "celsius" : "fahrenheit" },
    };
  }
  if (r < 0.7) {
    return {
      name: "search_docs",
      arguments: {
        query: sentence(rng),
        limit: int(rng, 1, 50),
        tags: [pick(rng, WORDS), pick(rng, WORDS)],
      },
    };
  }
  return {
    name: "send_message",
    arguments: {
      to: `${pick(rng, WORDS)}@example.com`,
      subject: sentence(rng),
      body: longArguments ? paragraph(rng) : sentence(rng),
    },
  };
}

/** Escapes every non-ASCII code unit as `\uXXXX` (valid inside JSON strings, which is the only place they occur). */
const asciiEscape = (json: string): string =>
  json.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

function renderCall(rng: Rng, call: BenchCall): string {
  const obj = { name: call.name, arguments: call.arguments };
  const r = rng();
  let json = r < 0.2 ? JSON.stringify(obj, null, 2) : JSON.stringify(obj);
  if (rng() < 0.3) json = asciiEscape(json);
  return `<tool_call>\n${json}\n</tool_call>`;
}

export interface Output {
  text: string;
  calls: BenchCall[];
  /** The same prose and calls as one JSON document, for the JSON.parse reference. */
  json: string;
}

/** How much prose comes between calls, and how long their arguments are. */
export interface OutputShape {
  /** Between calls: this many paragraphs (`paragraphs`) or sentences (`sentences`), inclusive range. */
  prose: { unit: "paragraphs" | "sentences"; min: number; max: number };
  /** How often the prose is followed by one or two calls. */
  callChance: number;
  /** Some `write_file` calls carry a 1–8 KB file and messages a paragraph (else one sentence each). */
  longArguments: boolean;
}

/** ~490 calls per MB among paragraphs, a tenth of them with 1–8 KB string arguments (bench:parse-stream). */
export const PROSE_WITH_CALLS: OutputShape = {
  prose: { unit: "paragraphs", min: 1, max: 3 },
  callChance: 0.6,
  longArguments: true,
};

/** ~3,000 calls per MB: a sentence or two between calls, short arguments (bench:ai-sdk-middleware). */
export const MANY_CALLS: OutputShape = {
  prose: { unit: "sentences", min: 1, max: 2 },
  callChance: 0.7,
  longArguments: false,
};

export function generateOutput(seed: number, size: number, shape: OutputShape = PROSE_WITH_CALLS): Output {
  const rng = prng(seed);
  const pieces: string[] = [];
  const segments: unknown[] = [];
  const calls: BenchCall[] = [];
  const unit = shape.prose.unit === "paragraphs" ? paragraph : sentence;
  const separator = shape.prose.unit === "paragraphs" ? "\n\n" : " ";
  let len = 0;
  while (len < size) {
    const paras: string[] = [];
    for (let i = int(rng, shape.prose.min, shape.prose.max); i > 0; i--) paras.push(unit(rng));
    const prose = `${paras.join(separator)}\n\n`;
    pieces.push(prose);
    segments.push(prose);
    len += prose.length;
    if (rng() < shape.callChance) {
      for (let i = int(rng, 1, 2); i > 0; i--) {
        const call = makeCall(rng, shape.longArguments);
        const rendered = `${renderCall(rng, call)}\n`;
        calls.push(call);
        pieces.push(rendered);
        segments.push(call);
        len += rendered.length;
      }
      pieces.push("\n");
      len += 1;
    }
  }
  return { text: pieces.join(""), calls, json: JSON.stringify({ output: segments }) };
}

export function largeArgumentOutput(seed: number, size: number): Output {
  const rng = prng(seed);
  const call: BenchCall = {
    name: "write_file",
    arguments: { path: "src/big.ts", content: longString(rng, size) },
  };
  const before = `${paragraph(rng)}\n\n`;
  const after = `\n${paragraph(rng)}\n`;
  const text = `${before}<tool_call>\n${JSON.stringify({ name: call.name, arguments: call.arguments })}\n</tool_call>${after}`;
  return { text, calls: [call], json: JSON.stringify({ output: [before, call, after] }) };
}

/** Where the 1–4 character chunks begin (and the text's end); a surrogate pair is never split, as by a tokenizer. */
export function chunkOffsets(text: string, seed: number): Uint32Array {
  const rng = prng(seed);
  const offsets: number[] = [0];
  let i = 0;
  while (i < text.length) {
    let end = Math.min(text.length, i + 1 + Math.floor(rng() * 4));
    const c = text.charCodeAt(end - 1);
    if (c >= 0xd800 && c <= 0xdbff && end < text.length) end++;
    offsets.push(end);
    i = end;
  }
  return Uint32Array.from(offsets);
}

export function chunkText(text: string, offsets: Uint32Array): string[] {
  const chunks: string[] = [];
  for (let k = 0; k + 1 < offsets.length; k++) chunks.push(text.slice(offsets[k], offsets[k + 1]));
  return chunks;
}
