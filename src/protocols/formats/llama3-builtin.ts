import type { Tool } from "@modelcontextprotocol/server";
import { CallBodyRegion, type DecodeOutcome, jsonScannerFactory } from "../core/call-body-region.js";
import { coerceArgumentsBySchema } from "../core/coerce-by-schema.js";
import { jsonCallsDecoder } from "../core/json-call-decoder.js";
import type { PatternToken } from "../core/match-pattern.js";
import { parsePythonCalls } from "../core/python-literal-parser.js";
import { PythonScanner } from "../core/python-scanner.js";
import { RawTextCallRegion } from "../core/raw-text-call-region.js";
import { dropRule } from "../core/reasoning-region.js";
import { joinContentAndCalls } from "../core/render-helpers.js";
import type { EngineContext, StartRule } from "../core/stream-engine.js";
import type { ToolCallProtocol } from "../protocol.js";
import { functionToolJson } from "../render/function-tool-json.js";
import { toPythonLiteral } from "../render/python-call.js";
import { renderResultTexts } from "../render/render-result-texts.js";
import type { ToolCall } from "../types.js";
import { bareJsonCallRules } from "./shared-bare-json-call-rules.js";
import { codeArgumentName, isBareCode } from "./shared-code-tool.js";
import { functionTagRule } from "./shared-function-tag-rule.js";
import { decodePythonCalls } from "./shared-python-calls-decoder.js";
import { createThinkingParser } from "./shared-thinking-parser.js";

const EXAMPLE = '<|python_tag|>{"name": "<function name>", "parameters": {"<argument name>": <value>}}';
const BUILTIN_EXAMPLE = '<|python_tag|>brave_search.call(query="<search terms>")';

/** Llama 3.1's built-in tools called as `name.call(query="…")` (`code_interpreter` is bare code instead). */
export const LLAMA3_BUILTIN_TOOLS: ReadonlySet<string> = new Set([
  "brave_search",
  "wolfram_alpha",
  "photogen",
]);
const CODE_TOOLS = ["code_interpreter", "python", "ipython"] as const;
const WS: PatternToken = { ws: true };
const TAG = "<|python_tag|>";

/** The tool free code after `<|python_tag|>` goes to: the code tool the caller offers, else `code_interpreter`. */
function codeTool(tools: readonly Tool[] | undefined): string {
  for (const name of CODE_TOOLS) if (tools?.some((t) => t.name === name)) return name;
  return CODE_TOOLS[0];
}

/** `(query="x")` after a name the marker gave: pythonic keyword arguments, read without evaluation. */
function pythonArgumentsDecoder(name: string) {
  return (raw: string, ctx: EngineContext): DecodeOutcome => {
    const r = parsePythonCalls(`f${raw}`);
    if (!r.ok) return { error: r.error };
    const args = r.calls[0]?.arguments ?? {};
    return {
      items: [
        { kind: "call", name, arguments: coerceArgumentsBySchema(name, args, ctx.tools), repaired: false },
      ],
    };
  };
}

/** Rules for what follows `<|python_tag|>`: a JSON call, `<function=…>`, a pythonic list, `x.call(…)`, or code. */
function pythonTagRules(): StartRule[] {
  const jsonAfterTag = jsonCallsDecoder(EXAMPLE);
  return [
    {
      first: "<",
      pattern: [TAG, WS, { mark: "body" }, "{"],
      open: (ctx, m) =>
        new CallBodyRegion(ctx, {
          opener: m.text,
          multiple: true,
          separators: ";",
          onNonValue: "error",
          createScanner: jsonScannerFactory,
          isCallPath: (p) => p.length === 0,
          decode: jsonAfterTag,
          example: EXAMPLE,
          what: "the JSON call after <|python_tag|>",
        }),
    },
    // `<|python_tag|><function=…>`: the tag carries nothing; the function rule reads the call.
    { first: "<", pattern: [TAG, WS, { mark: "body" }, "<function="], open: () => null },
    {
      first: "<",
      pattern: [TAG, WS, { mark: "body" }, "[", WS, { ident: "name" }, WS, "("],
      open: (ctx, m) =>
        new CallBodyRegion(ctx, {
          opener: m.text,
          valueStart: "[",
          onNonValue: "error",
          createScanner: (hooks, stop) => new PythonScanner(hooks, stop),
          isCallPath: () => false,
          decode: decodePythonCalls,
          example: '<|python_tag|>[func_name(param="value")]',
          what: "the call list after <|python_tag|>",
        }),
    },
    {
      first: "<",
      pattern: [TAG, WS, { ident: "name" }, { mark: "body" }, WS, "("],
      open: (ctx, m) => {
        const ident = m.captures.name!;
        const builtin = ident.endsWith(".call") ? ident.slice(0, -".call".length) : undefined;
        const name = builtin ?? (ctx.tools?.some((t) => t.name === ident) ? ident : undefined);
        if (name === undefined) {
          // `print(…)`, `math.sqrt(…)`: code for the interpreter.
          const tool = codeTool(ctx.tools);
          return new RawTextCallRegion(ctx, {
            opener: m.text.slice(0, m.text.length - ident.length),
            name: tool,
            argName: codeArgumentName(tool, ctx.tools),
            ends: codeEnds,
            lead: ident,
          });
        }
        return new CallBodyRegion(ctx, {
          opener: m.text,
          namedCall: { ...ctx.startCall(name), name },
          valueStart: "(",
          onNonValue: "error",
          createScanner: (_hooks, stop) => new PythonScanner({ isCallPath: () => false }, stop),
          decode: pythonArgumentsDecoder(name),
          example: BUILTIN_EXAMPLE,
          what: `the arguments of ${ident}(…)`,
        });
      },
    },
    {
      first: "<",
      pattern: [TAG, WS],
      open: (ctx, m) => {
        const tool = codeTool(ctx.tools);
        return new RawTextCallRegion(ctx, {
          opener: m.text,
          name: tool,
          argName: codeArgumentName(tool, ctx.tools),
          ends: codeEnds,
        });
      },
    },
  ];
}

const codeEnds = [
  { marker: "<|eom_id|>", consume: true },
  { marker: "<|eot_id|>", consume: true },
];

function kwargs(args: Record<string, unknown>): string | undefined {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(args)) {
    if (!/^[A-Za-z_]\w*$/.test(k)) return undefined;
    parts.push(`${k}=${toPythonLiteral(v)}`);
  }
  return parts.join(", ");
}

function renderCall(c: ToolCall, last: boolean): string {
  if (LLAMA3_BUILTIN_TOOLS.has(c.name)) {
    const args = kwargs(c.arguments);
    if (args !== undefined) return `${TAG}${c.name}.call(${args})`;
  }
  const code = c.arguments.code;
  if (
    last &&
    (CODE_TOOLS as readonly string[]).includes(c.name) &&
    isBareCode(c, "code") &&
    typeof code === "string" &&
    !/^[A-Za-z_][\w.-]*\.call\s*\(/.test(code)
  ) {
    return `${TAG}${code}`;
  }
  const json = JSON.stringify({ name: c.name, parameters: c.arguments });
  // Custom tools: bare JSON, exactly as Meta's Llama 3.1 template asks; the tag belongs to built-ins and code.
  const custom = !LLAMA3_BUILTIN_TOOLS.has(c.name) && !(CODE_TOOLS as readonly string[]).includes(c.name);
  return custom ? json : `${TAG}${json}`;
}

/**
 * Llama 3.1–3.3 with built-in tools (`Environment: ipython`): after `<|python_tag|>` the model writes
 * `brave_search.call(query="…")` / `wolfram_alpha.call(query="…")`, plain code for the code interpreter, or a
 * custom-tool JSON call `{"name": …, "parameters": {…}}`; it ends such a message with `<|eom_id|>`. Custom tools
 * also come bare (no tag) or as `<function=name>{…}</function>`. Results return in the `ipython` role.
 */
export const llama3BuiltinProtocol: ToolCallProtocol = {
  id: "llama3_builtin",
  description: "Llama 3.1+ <|python_tag|> built-in tools, code interpreter and JSON calls",
  resultRole: "tool",
  stopSequences: ["<|eom_id|>", "<|eot_id|>"],
  callStartMarkers: [TAG, "<function=", '{"name"'],
  callBody: "text",
  renderCatalogue(tools, opts) {
    const builtins = tools.filter((t) => LLAMA3_BUILTIN_TOOLS.has(t.name)).map((t) => t.name);
    const hasCode = tools.some((t) => (CODE_TOOLS as readonly string[]).includes(t.name));
    const custom = tools.filter(
      (t) => !LLAMA3_BUILTIN_TOOLS.has(t.name) && !(CODE_TOOLS as readonly string[]).includes(t.name),
    );
    const lines = ["Environment: ipython"];
    if (builtins.length > 0) lines.push(`Tools: ${builtins.join(", ")}`);
    lines.push("");
    if (builtins.length > 0) {
      lines.push(
        `To use a built-in tool, reply with <|python_tag|> followed by a call such as ${builtins[0]}.call(query="…").`,
      );
    }
    if (hasCode) lines.push("To run Python code, reply with <|python_tag|> followed by the code.");
    if (custom.length > 0) {
      lines.push(
        "You have access to the following functions. To call a function, please respond with JSON for a function call.",
        'Respond in the format {"name": function name, "parameters": dictionary of argument name and its value}.',
        "Do not use variables.",
        "",
        ...custom.map((t) => `${JSON.stringify(functionToolJson(t), null, 4)}\n`),
      );
    }
    if (opts?.parallel === false) lines.push("Call at most one function per message.");
    if (opts?.extraInstructions) lines.push(opts.extraInstructions);
    return lines.join("\n").trimEnd();
  },
  renderAssistantTurn({ content, calls }) {
    const rendered = calls.map((c, i) => renderCall(c, i === calls.length - 1)).join("\n");
    return joinContentAndCalls(content, rendered);
  },
  renderToolResults(results) {
    return renderResultTexts(results);
  },
  createParser(opts) {
    return createThinkingParser(
      [
        dropRule("<|eom_id|>"),
        dropRule("<|eot_id|>"),
        ...pythonTagRules(),
        functionTagRule(),
        ...bareJsonCallRules(EXAMPLE),
      ],
      opts,
    );
  },
};
