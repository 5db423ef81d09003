import type { Tool } from "@modelcontextprotocol/server";
import { CallBodyRegion, type DecodedItem, jsonScannerFactory } from "../core/call-body-region.js";
import { jsonCallsDecoder } from "../core/json-call-decoder.js";
import { dropRule, reasoningPrefix, reasoningRule } from "../core/reasoning-region.js";
import { resultToText } from "../core/render-helpers.js";
import { StreamParser } from "../core/stream-engine.js";
import { readCallArguments } from "../decode-call-arguments.js";
import type { ToolCallProtocol } from "../protocol.js";
import { extraInstructionLines, oneCallOnlyLines } from "../render/catalogue-option-lines.js";

const PREFIX = "<|tools_prefix|>";
const SUFFIX = "<|tools_suffix|>";
const INNER_PREFIX = "<|inner_prefix|>";
const INNER_SUFFIX = "<|inner_suffix|>";
const ASSISTANT_END = "<|assistant_end|>";
const EXAMPLE = `${PREFIX}[{"<tool name>": {"<param>": <value>}}]${SUFFIX}`;

/** `{"get_weather": {"city": "Paris"}}` — one key, the tool's name, whose value is the arguments. */
function apertusCall(value: unknown): DecodedItem {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return { kind: "error", message: `each call must be a JSON object; send the calls as ${EXAMPLE}` };
  const entries = Object.entries(value);
  if (entries.length !== 1)
    return {
      kind: "error",
      message: `each call must be an object with exactly one key, the tool name; send the calls as ${EXAMPLE}`,
    };
  const [name, raw] = entries[0]!;
  const args = readCallArguments(raw, `the arguments of "${name}"`);
  if (!args.ok) return { kind: "error", message: `${args.error}; send the calls as ${EXAMPLE}` };
  return { kind: "call", name, arguments: args.value, repaired: args.repaired };
}

type Schema = {
  type?: unknown;
  description?: unknown;
  enum?: unknown;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: unknown;
  nullable?: unknown;
};

/** A parameter's type as the template's `render_typescript_type` writes it. */
function tsType(s: Schema): string {
  const nullable = s.nullable ? " | null" : "";
  if (s.type === "array") {
    const it = s.items;
    if (!it) return `any[]${nullable}`;
    const inner = it.type === "integer" ? "number" : tsType(it);
    return `${inner.length > 50 ? "any" : inner}[]${nullable}`;
  }
  if (Array.isArray(s.type)) return s.type.join(" | ");
  if (s.type === "string")
    return Array.isArray(s.enum)
      ? s.enum.map((e) => JSON.stringify(String(e))).join(" | ")
      : `string${nullable}`;
  if (s.type === "number" || s.type === "integer") return "number";
  if (s.type === "boolean") return "boolean";
  if (s.type === "object") {
    if (!s.properties) return "object";
    const req = Array.isArray(s.required) ? s.required : [];
    const props = Object.entries(s.properties).map(
      ([k, p]) => `${k}${req.includes(k) ? "" : "?"}: ${tsType(p ?? {})}`,
    );
    return `{\n${props.join(", ")}}`;
  }
  return "any";
}

/** One tool as the template's `render_tools` declares it: a TypeScript type with `//` comments. */
function renderToolType(tool: Tool): string {
  const schema = tool.inputSchema as Schema;
  const lines = [`// ${tool.description ?? ""}`];
  const props = Object.entries(schema.properties ?? {});
  if (props.length === 0) return `${lines[0]}\ntype ${tool.name} = () => any;`;
  const req = Array.isArray(schema.required) ? schema.required : [];
  const params = props.map(([k, p]) => {
    const doc = typeof p?.description === "string" ? `// ${p.description}\n` : "";
    return `${doc}${k}${req.includes(k) ? "" : "?"}: ${tsType(p ?? {})}`;
  });
  return `${lines[0]}\ntype ${tool.name} = (_: {\n${params.join(",\n")}\n}) => any;`;
}

const decode = jsonCallsDecoder(EXAMPLE, (v) => (Array.isArray(v) ? v : [v]).map(apertusCall));

/**
 * Swiss AI Apertus: `<|tools_prefix|>[{"get_weather": {"city": "Paris"}}, …]<|tools_suffix|>` — a JSON list of
 * one-key objects, name → arguments; reasoning ("deliberation") in `<|inner_prefix|>…<|inner_suffix|>`; the turn
 * ends with `<|assistant_end|>`; tool outputs follow the calls in the same turn as `[output, …]`; tools are
 * declared as TypeScript types under "Tool Capabilities:". Markers and wording from the model's chat template
 * (llama.cpp models/templates/Apertus-8B-Instruct.jinja) and vLLM's apertus tool parser.
 */
export const apertusProtocol: ToolCallProtocol = {
  id: "apertus",
  description: 'Apertus <|tools_prefix|>[{"name": {args}}]<|tools_suffix|>',
  resultRole: "tool",
  stopSequences: [ASSISTANT_END],
  callStartMarkers: [PREFIX],
  callBody: "text",
  renderCatalogue(tools, opts) {
    return [
      `Tool Capabilities:\n${tools.map(renderToolType).join("\n")}`,
      "",
      `To call tools, write one JSON list of calls, each an object from the tool name to its arguments, between ${PREFIX} and ${SUFFIX}:`,
      `${PREFIX}[{"tool_name1": {"arg1": "value1"}}, {"tool_name2": {"arg2": "value2"}}]${SUFFIX}`,
      ...oneCallOnlyLines(opts, "Call at most one tool per reply."),
      ...extraInstructionLines(opts),
    ].join("\n");
  },
  renderAssistantTurn({ content, calls }) {
    if (calls.length === 0) return content ?? "";
    // As the template: `{"name": arguments}` objects, comma-separated, straight after the text.
    const items = calls.map((c) => `{${JSON.stringify(c.name)}: ${JSON.stringify(c.arguments)}}`);
    return `${content?.trim() ?? ""}${PREFIX}[${items.join(", ")}]${SUFFIX}`;
  },
  renderToolResults(results) {
    // The template appends the tool messages' contents to the assistant turn as one bracketed list.
    return `[${results.map((r) => resultToText(r.result)).join(", ")}]`;
  },
  createParser(opts) {
    return new StreamParser(
      {
        rules: [
          reasoningRule(INNER_PREFIX, INNER_SUFFIX),
          dropRule(INNER_SUFFIX),
          reasoningRule(),
          dropRule("</think>"),
          dropRule(ASSISTANT_END),
          dropRule(SUFFIX),
          {
            first: "<",
            pattern: [PREFIX],
            open: (ctx, m) =>
              new CallBodyRegion(ctx, {
                opener: m.text,
                endMarker: SUFFIX,
                valueStart: "[{",
                onNonValue: "error",
                createScanner: jsonScannerFactory,
                // Each element of the list is a call, `{"<tool name>": {…arguments}}`: its one key names it.
                isCallPath: (path) => path.length === 1 && typeof path[0] === "number",
                nameFrom: (members) => Object.keys(members)[0],
                decode,
                example: EXAMPLE,
                what: `the JSON list after ${PREFIX}`,
              }),
          },
        ],
        strayClosers: [SUFFIX],
        initialRegion: (ctx, prefix) =>
          reasoningPrefix(INNER_PREFIX, INNER_SUFFIX)(ctx, prefix) ?? reasoningPrefix()(ctx, prefix),
      },
      opts,
    );
  },
};
