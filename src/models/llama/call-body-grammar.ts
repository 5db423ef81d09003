import type { Tool } from "@modelcontextprotocol/server";
import type { Llama, LlamaGrammar } from "node-llama-cpp";
import type { ToolCallProtocol } from "../../protocols/protocol.js";
import { TIME_ZONE_FORMAT, timeZoneNames } from "../../tools/builtin/resolve-time-zone.js";
import {
  COPY_VALUE_NONEMPTY_RULE,
  COPY_VALUE_RULE,
  type CopySources,
  copyValueRules,
  toolCopyValueNonEmptyRule,
  toolCopyValueRule,
} from "./copy-grammar.js";
import {
  COPY_PLACEHOLDER,
  COPY_PLACEHOLDER_NONEMPTY,
  type GbnfSchemaOptions,
  toGbnfJsonSchema,
} from "./to-gbnf-json-schema.js";

/** Formats whose values the call body's grammar lists (see GbnfSchemaOptions.enumerations). */
const GRAMMAR_ENUMERATIONS = { [TIME_ZONE_FORMAT]: timeZoneNames };

const SENTINEL = "__toolbridge_arguments__";

/** How one tool's call is written after the protocol's call-start marker: fixed text, the arguments, fixed text. */
export interface CallFrame {
  name: string;
  /** Text between the call-start marker and the arguments object. */
  before: string;
  /** Text after the arguments object up to the end of the call. */
  after: string;
}

/**
 * The call frame of each tool in the protocol's own words, found by rendering a call with a sentinel argument and
 * cutting around it — so the grammar writes exactly what the protocol's parser reads back. Undefined when the
 * protocol does not carry arguments as one JSON object after a marker (pythonic, XML parameters).
 */
export function callFrames(
  protocol: ToolCallProtocol,
  tools: readonly Tool[],
): { marker: string; frames: CallFrame[] } | undefined {
  if (protocol.callBody === "text") return undefined;
  let marker: string | undefined;
  const frames: CallFrame[] = [];
  for (const tool of tools) {
    const rendered = protocol.renderAssistantTurn({
      calls: [{ id: "call_0", name: tool.name, arguments: { [SENTINEL]: 0 } }],
    });
    const at = protocol.callStartMarkers
      .map((m) => ({ m, i: rendered.indexOf(m) }))
      .filter((x) => x.i >= 0)
      .sort((a, b) => a.i - b.i)[0];
    const key = rendered.indexOf(`"${SENTINEL}"`);
    if (!at || key < 0) return undefined;
    if (marker !== undefined && marker !== at.m) return undefined;
    marker = at.m;
    const open = rendered.lastIndexOf("{", key);
    const close = rendered.indexOf("}", key);
    if (open < at.i + at.m.length || close < 0) return undefined;
    frames.push({
      name: tool.name,
      before: rendered.slice(at.i + at.m.length, open),
      after: rendered.slice(close + 1).trimEnd(),
    });
  }
  return marker === undefined ? undefined : { marker, frames };
}

/**
 * node-llama-cpp's JSON-schema grammars end the document with `"\n\n\n\n" [\n]*` (so free generation stops
 * there). Inside a call frame that would force four newlines between the arguments and the frame's closing text, so
 * a model that closes the call the way the protocol writes it (`"}}`) is rejected and runs on inside the string.
 */
export function withoutTrailingNewlines(gbnf: string): string {
  return gbnf.replace(/^(root ::= .*?)\s*"(?:\\n)+"\s*\[\\n\]\*\s*$/m, "$1");
}

/** A GBNF string literal. */
function literal(text: string): string {
  if (text === "") return "";
  // JSON's escapes (\n, \", \\, \uXXXX) are all GBNF escapes too.
  return JSON.stringify(text);
}

/**
 * Prefix every rule name of a GBNF grammar (definitions and references), leaving string literals and character
 * classes alone, so several generated grammars can live in one.
 */
export function prefixGbnfRules(gbnf: string, prefix: string): string {
  let out = "";
  let i = 0;
  while (i < gbnf.length) {
    const c = gbnf[i]!;
    if (c === '"' || c === "[") {
      const end = c === '"' ? '"' : "]";
      let j = i + 1;
      while (j < gbnf.length && gbnf[j] !== end) j += gbnf[j] === "\\" ? 2 : 1;
      out += gbnf.slice(i, j + 1);
      i = j + 1;
    } else if (c === "#") {
      const j = gbnf.indexOf("\n", i);
      i = j < 0 ? gbnf.length : j;
    } else if (/[a-zA-Z]/.test(c)) {
      let j = i + 1;
      while (j < gbnf.length && /[a-zA-Z0-9-]/.test(gbnf[j]!)) j++;
      out += prefix + gbnf.slice(i, j);
      i = j;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** Options of a call body's grammar: the schema conversion's, the one tool of a named call, copied strings. */
export type CallBodyGrammarOptions = Omit<GbnfSchemaOptions, "copyStrings" | "enumerations"> & {
  named?: string;
  /** Hold plain string arguments to the words of these sources (copy-grammar.ts). */
  copy?: CopySources;
};

/**
 * The GBNF of a call body from just after the call-start marker to the end of the call: one alternative per tool,
 * each its fixed frame around the tool's arguments schema. `named` narrows to one tool and starts after its `before`
 * text (the prompt already holds it). With `copyStrings`, plain strings are left as placeholder literals for
 * `withCopiedStrings` to fill in.
 */
export async function callBodyGbnf(
  llama: Llama,
  frames: readonly CallFrame[],
  tools: readonly Tool[],
  options: GbnfSchemaOptions & { named?: string; zones?: readonly string[] | undefined } = {},
): Promise<string> {
  const { zones } = options;
  const enumerations = zones?.length
    ? { ...GRAMMAR_ENUMERATIONS, [TIME_ZONE_FORMAT]: () => zones }
    : GRAMMAR_ENUMERATIONS;
  const picked = options.named === undefined ? frames : frames.filter((f) => f.name === options.named);
  const rules: string[] = [];
  const alternatives: string[] = [];
  for (const [index, frame] of picked.entries()) {
    const tool = tools.find((t) => t.name === frame.name);
    // The generic parameter infers a literal schema type; ours is only known at run time. Zone names may be listed:
    // this schema only ever becomes grammar (the catalogue the model reads is rendered from the tool's own schema).
    const json = await llama.createGrammarForJsonSchema(
      toGbnfJsonSchema(tool?.inputSchema, { ...options, enumerations }) as never,
    );
    const prefix = `t${index}-`;
    rules.push(prefixGbnfRules(withoutTrailingNewlines(json.grammar), prefix));
    const before = options.named === undefined ? literal(frame.before) : "";
    alternatives.push([before, `${prefix}root`, literal(frame.after)].filter(Boolean).join(" "));
  }
  return [`root ::= ${alternatives.map((a) => `( ${a} )`).join(" | ")}`, ...rules].join("\n");
}

/**
 * A call-body GBNF made with `copyStrings`, its placeholder strings replaced by the copy-constrained string of these
 * sources (bounded to `maxItems` runs when set, as maxLength bounds a plain string for tiny models).
 */
export function withCopiedStrings(
  gbnf: string,
  sources: CopySources,
  maxItems: number | undefined,
  tools: readonly string[],
): string {
  const quoted = (placeholder: string) => literal(`"${placeholder}"`);
  if (!gbnf.includes(COPY_PLACEHOLDER) && !gbnf.includes(COPY_PLACEHOLDER_NONEMPTY)) return gbnf;
  // Each tool's rules are prefixed `t<i>-` (callBodyGbnf): its strings copy from the conversation and its own schema.
  let index: number | undefined;
  const body = gbnf
    .split("\n")
    .map((line) => {
      const rule = /^t(\d+)-/.exec(line);
      if (rule) index = Number(rule[1]);
      else if (!/^\s/.test(line)) index = undefined;
      return line
        .replaceAll(
          quoted(COPY_PLACEHOLDER),
          index === undefined ? COPY_VALUE_RULE : toolCopyValueRule(index),
        )
        .replaceAll(
          quoted(COPY_PLACEHOLDER_NONEMPTY),
          index === undefined ? COPY_VALUE_NONEMPTY_RULE : toolCopyValueNonEmptyRule(index),
        );
    })
    .join("\n");
  return `${body}\n${copyValueRules(sources, maxItems, tools)}`;
}

/** The tools of a call body's alternatives, in its order (`t0-`, `t1-`, …): every frame's, or the named one's. */
export function callBodyTools(frames: readonly CallFrame[], named: string | undefined): string[] {
  return (named === undefined ? frames : frames.filter((f) => f.name === named)).map((f) => f.name);
}

/** The compiled grammar of a call body (see `callBodyGbnf`), plain strings copy-constrained when `copy` is given. */
export async function createCallBodyGrammar(
  llama: Llama,
  frames: readonly CallFrame[],
  tools: readonly Tool[],
  options: CallBodyGrammarOptions = {},
): Promise<LlamaGrammar> {
  const { copy, ...rest } = options;
  const gbnf = await callBodyGbnf(llama, frames, tools, {
    ...rest,
    copyStrings: copy !== undefined,
    zones: copy?.zones,
  });
  const grammar = copy
    ? withCopiedStrings(gbnf, copy, options.maxStringLength, callBodyTools(frames, options.named))
    : gbnf;
  return llama.createGrammar({ grammar });
}
