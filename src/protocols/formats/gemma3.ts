import { CallBodyRegion, type DecodeOutcome } from "../core/call-body-region.js";
import { jsonCallsDecoder } from "../core/json-call-decoder.js";
import type { PatternToken } from "../core/match-pattern.js";
import { PythonScanner } from "../core/python-scanner.js";
import { dropRule } from "../core/reasoning-region.js";
import { joinContentAndCalls, toolToFunctionJson } from "../core/render-helpers.js";
import type { EngineContext, StartRule } from "../core/stream-engine.js";
import type { ToolCallProtocol } from "../protocol.js";
import { extraInstructionLines } from "../render/catalogue-option-lines.js";
import { renderPythonCall } from "../render/python-call.js";
import { renderCallObjects } from "../render/render-call-objects.js";
import { renderResultTexts } from "../render/render-result-texts.js";
import type { ToolResultItem } from "../types.js";
import { markerlessJsonBody } from "./shared-json-body-rules.js";
import { jsonCallOrProseDecoder } from "./shared-json-call-or-prose-decoder.js";
import { decodePythonCalls } from "./shared-python-calls-decoder.js";
import { createThinkingParser } from "./shared-thinking-parser.js";

const CODE_EXAMPLE = '```tool_code\nfunction_name(param1="value1", param2=2)\n```';
const JSON_EXAMPLE = '{"name": "<function name>", "parameters": {"<argument name>": <value>}}';
const WS: PatternToken = { ws: true };
const IDENT_START = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_";
/** Fence languages Gemma writes calls under (the prompt says `tool_code`; `tool_call` is a common slip). */
const CODE_FENCES: PatternToken = { alt: [["tool_code"], ["tool_call"]] };

/** Results go back to Gemma in a `tool_output` fence, as its function-calling guide shows. */
function renderToolOutput(results: readonly ToolResultItem[]): string {
  return renderResultTexts(results, { open: "```tool_output\n", close: "\n```" });
}

const jsonInFence = jsonCallsDecoder(CODE_EXAMPLE);

/**
 * One statement of a `tool_code` block: `f(a=1)`, a list `[f(a=1), g()]`, `print(f(a=1))` (Gemma echoes the
 * Gemini habit) or a JSON call object. Read as literals; nothing is evaluated.
 */
function decodeToolCode(raw: string, ctx: EngineContext): DecodeOutcome {
  let src = raw.trim();
  if (src.startsWith("{")) return jsonInFence(src);
  const printed = /^print\s*\(([\s\S]*)\)$/.exec(src);
  if (printed && /^\s*\[?\s*[A-Za-z_][\w.]*\s*\(/.test(printed[1]!)) src = printed[1]!;
  return decodePythonCalls(src, ctx);
}

function toolCodeRules(): StartRule[] {
  const list = (ctx: EngineContext, opener: string, fenced: boolean) =>
    new CallBodyRegion(ctx, {
      opener,
      fenced,
      valueStart: "[",
      onNonValue: "revert",
      revertUndecodable: true,
      createScanner: (hooks, stop) => new PythonScanner(hooks, stop),
      isCallPath: () => false,
      decode: decodeToolCode,
      example: CODE_EXAMPLE,
      what: "the call list",
    });
  const head: PatternToken[] = [{ mark: "body" }, "[", WS, { ident: "name" }, WS, "("];
  return [
    {
      first: "`",
      pattern: ["```", CODE_FENCES, WS],
      open: (ctx, m) =>
        new CallBodyRegion(ctx, {
          opener: m.text,
          endMarker: "```",
          valueStart: `${IDENT_START}[{`,
          multiple: true,
          separators: ",;",
          onNonValue: "error",
          createScanner: (_hooks, stop) => new PythonScanner({ isCallPath: () => false }, stop),
          decode: decodeToolCode,
          example: CODE_EXAMPLE,
          what: "the code in the tool_code block",
        }),
    },
    // The pythonic list of Google's prompt (`[f(a=1), g(b="x")]`), bare or in another fence.
    { first: "[", pattern: head, open: (ctx, m) => list(ctx, m.text, false) },
    {
      first: "`",
      pattern: ["```", { letters: true }, WS, ...head],
      open: (ctx, m) => list(ctx, m.text, true),
    },
  ];
}

function pythonSignature(t: { name: string; inputSchema: unknown; description?: string }): string {
  const schema = t.inputSchema as { properties?: Record<string, { type?: unknown; description?: unknown }> };
  const pyType = (s: { type?: unknown }): string =>
    ({ string: "str", integer: "int", number: "float", boolean: "bool", array: "list", object: "dict" })[
      String(s.type)
    ] ?? "Any";
  const props = Object.entries(schema.properties ?? {});
  const params = props.map(([k, s]) => `${k}: ${pyType(s ?? {})}`).join(", ");
  const doc = [t.description ?? "", ...(props.length > 0 ? ["", "Args:"] : [])];
  for (const [k, s] of props)
    doc.push(`  ${k}: ${typeof s?.description === "string" ? s.description : ""}`.trimEnd());
  return [`def ${t.name}(${params}):`, '    """', ...doc.map((l) => (l ? `    ${l}` : "")), '    """'].join(
    "\n",
  );
}

/**
 * Gemma 3 prompt-based calling, code style: calls as Python in a ```` ```tool_code ```` fence (one per line, or a
 * list), results in ```` ```tool_output ````. Gemma has no tool tokens; `<end_of_turn>` ends its turn.
 */
export const gemma3ToolCodeProtocol: ToolCallProtocol = {
  id: "gemma3_tool_code",
  description: "Gemma 3 ```tool_code fenced Python calls",
  resultRole: "user",
  stopSequences: ["```tool_output", "<end_of_turn>"],
  callStartMarkers: ["```tool_code"],
  callBody: "text",
  renderCatalogue(tools, opts) {
    return [
      "At each turn, if you decide to invoke any of the function(s), it should be wrapped with ```tool_code```.",
      "The python methods described below are imported and available, you can only use defined methods.",
      "The generated code should be readable and efficient.",
      "The response to a method will be wrapped in ```tool_output``` use it to call more tools or generate a helpful, friendly response.",
      opts?.parallel === false
        ? "Call one method per turn."
        : "To call several methods, write one call per line inside the same ```tool_code``` block.",
      "",
      "The following Python methods are available:",
      "",
      "```python",
      ...tools.map(pythonSignature),
      "```",
      "",
      "For example:",
      CODE_EXAMPLE,
      ...extraInstructionLines(opts),
    ].join("\n");
  },
  renderAssistantTurn({ content, calls }) {
    if (calls.length === 0) return content ?? "";
    const lines = calls.map(renderPythonCall);
    return joinContentAndCalls(content, `\`\`\`tool_code\n${lines.join("\n")}\n\`\`\``);
  },
  renderToolResults: renderToolOutput,
  createParser(opts) {
    return createThinkingParser([dropRule("<end_of_turn>"), ...toolCodeRules()], opts);
  },
};

function jsonRules(): StartRule[] {
  const open = markerlessJsonBody({
    startOnArguments: true,
    isCallPath: (p) => p.length === 0 || (p.length === 1 && typeof p[0] === "number"),
    decode: jsonCallOrProseDecoder(JSON_EXAMPLE),
    example: JSON_EXAMPLE,
    what: "the JSON call",
  });
  const object: PatternToken[] = [
    { mark: "body" },
    { alt: [["{"], ["[", WS, "{"]] },
    WS,
    { opt: ['"type"', WS, ":", WS, '"function"', WS, ",", WS] },
    { alt: [['"name"'], ["'name'"]] },
  ];
  return [
    { first: "{[", pattern: object, open: (ctx, m) => open(ctx, m.text, false) },
    {
      first: "`",
      pattern: ["```", { alt: [["tool_code"], ["tool_call"], [{ letters: true }]] }, WS, ...object],
      open: (ctx, m) => open(ctx, m.text, true),
    },
  ];
}

/**
 * Gemma 3 prompt-based calling, JSON style: `{"name": …, "parameters": {…}}` (bare, in a code fence, or a list of
 * them). An object with a name but no parameters is prose.
 */
export const gemma3JsonProtocol: ToolCallProtocol = {
  id: "gemma3_json",
  description: 'Gemma 3 {"name", "parameters"} JSON calls',
  resultRole: "user",
  stopSequences: ["```tool_output", "<end_of_turn>"],
  callStartMarkers: ['{"name"', "```json"],
  callBody: "json-call",
  renderCatalogue(tools, opts) {
    return [
      "You have access to functions. If you decide to invoke any of the function(s),",
      "you MUST put it in the format of",
      '{"name": function name, "parameters": dictionary of argument name and its value}',
      "",
      "You SHOULD NOT include any other text in the response if you call a function",
      ...(opts?.parallel === false ? [] : ["To call several functions, write one JSON object per line."]),
      JSON.stringify(tools.map(toolToFunctionJson), null, 2),
      ...extraInstructionLines(opts),
    ].join("\n");
  },
  renderAssistantTurn({ content, calls }) {
    return joinContentAndCalls(content, renderCallObjects(calls, { argumentsKey: "parameters" }));
  },
  renderToolResults: renderToolOutput,
  createParser(opts) {
    return createThinkingParser([dropRule("<end_of_turn>"), ...jsonRules()], opts);
  },
};
