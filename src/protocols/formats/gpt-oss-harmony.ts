import type { Tool } from "@modelcontextprotocol/server";
import type { CallBodyRegion } from "../core/call-body-region.js";
import { jsonValueScannerFactory } from "../core/json-value-scanner.js";
import type { PatternToken } from "../core/match-pattern.js";
import { dropRule, ReasoningRegion } from "../core/reasoning-region.js";
import { resultToText } from "../core/render-helpers.js";
import { type EngineContext, type StartRule, StreamParser } from "../core/stream-engine.js";
import type { ToolCallProtocol } from "../protocol.js";
import { extraInstructionLines, oneCallOnlyLines } from "../render/catalogue-option-lines.js";
import { namedArgumentsRegion } from "./shared-named-arguments-region.js";

const START = "<|start|>";
const END = "<|end|>";
const MESSAGE = "<|message|>";
const CHANNEL = "<|channel|>";
const CONSTRAIN = "<|constrain|>";
const RETURN = "<|return|>";
const CALL = "<|call|>";
const NAMESPACE = "functions.";

const EXAMPLE = `${CHANNEL}commentary to=functions.<function name> ${CONSTRAIN}json${MESSAGE}{"<param>": <value>}${CALL}`;

const WS: PatternToken = { ws: true };
/** Rest of a header after the channel name or recipient: optional `<|constrain|>json` (or bare ` json`). */
const HEADER_TAIL: PatternToken[] = [WS, { opt: [CONSTRAIN] }, WS, { letters: true }, WS, MESSAGE];

/** `functions.get_weather` → `get_weather`; built-in recipients (`python`, `browser.search`) keep their name. */
function recipientName(recipient: string): string {
  return recipient.startsWith(NAMESPACE) && recipient.length > NAMESPACE.length
    ? recipient.slice(NAMESPACE.length)
    : recipient;
}

function callRegion(ctx: EngineContext, opener: string, recipient: string): CallBodyRegion {
  return namedArgumentsRegion(ctx, recipientName(recipient), {
    opener,
    endMarker: CALL,
    valueStart: '{"',
    createScanner: jsonValueScannerFactory,
    example: EXAMPLE,
    what: `the message to=${recipient}`,
  });
}

type Schema = Record<string, unknown>;

function isSchema(v: unknown): v is Schema {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A JSON Schema as the TypeScript-like type harmony's tool section uses. */
function tsType(schema: unknown): string {
  if (!isSchema(schema)) return "any";
  if (Array.isArray(schema.enum) && schema.enum.length > 0) {
    return schema.enum.map((v) => JSON.stringify(v)).join(" | ");
  }
  if ("const" in schema) return JSON.stringify(schema.const);
  const union = (schema.anyOf ?? schema.oneOf) as unknown;
  if (Array.isArray(union) && union.length > 0) return union.map(tsType).join(" | ");
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const parts = types.map((t) => {
    switch (t) {
      case "string":
        return "string";
      case "number":
      case "integer":
      case "float":
        return "number";
      case "boolean":
        return "boolean";
      case "null":
        return "null";
      case "array":
      case "tuple": {
        const item = tsType(schema.items);
        return item.includes(" | ") ? `(${item})[]` : `${item}[]`;
      }
      case "object":
      case "dict":
        return isSchema(schema.properties) && Object.keys(schema.properties).length > 0
          ? objectType(schema)
          : "object";
      default:
        return "any";
    }
  });
  return parts.join(" | ");
}

function objectType(schema: Schema): string {
  const props = (schema.properties ?? {}) as Record<string, unknown>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const lines = ["{"];
  for (const [key, prop] of Object.entries(props)) {
    const p = isSchema(prop) ? prop : {};
    if (typeof p.description === "string" && p.description !== "") {
      for (const line of p.description.split("\n")) lines.push(`// ${line}`);
    }
    const name = /^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key);
    const def =
      "default" in p
        ? ` // default: ${typeof p.default === "string" ? p.default : JSON.stringify(p.default)}`
        : "";
    lines.push(`${name}${required.has(key) ? "" : "?"}: ${tsType(p)},${def}`);
  }
  lines.push("}");
  return lines.join("\n");
}

function renderFunction(tool: Tool): string {
  const desc = tool.description ?? tool.title ?? "";
  const comment = desc
    ? `${desc
        .split("\n")
        .map((l) => `// ${l}`)
        .join("\n")}\n`
    : "";
  const schema = tool.inputSchema as Schema;
  const hasParams = isSchema(schema.properties) && Object.keys(schema.properties).length > 0;
  return `${comment}type ${tool.name} = (${hasParams ? `_: ${objectType(schema)}` : ""}) => any;`;
}

/**
 * OpenAI gpt-oss "harmony" messages: `<|channel|>analysis<|message|>…<|end|>` is reasoning,
 * `<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{…}<|call|>` is a call (the recipient may
 * also sit in the role part: `<|start|>assistant to=functions.NAME<|channel|>commentary json<|message|>`), and
 * `final` (or a commentary preamble without recipient) is content. Results come back as
 * `<|start|>functions.NAME to=assistant<|channel|>commentary<|message|>…<|end|>`.
 * The usual prompt ends with `<|start|>assistant`, so output begins at `<|channel|>` (or ` to=`).
 */
export const gptOssHarmonyProtocol: ToolCallProtocol = {
  id: "gpt_oss_harmony",
  description: "OpenAI gpt-oss harmony channels (commentary to=functions.name)",
  resultRole: "tool",
  stopSequences: [CALL, RETURN],
  callStartMarkers: [`${CHANNEL}commentary to=${NAMESPACE}`, ` to=${NAMESPACE}`],
  callBody: "json-arguments",
  renderCatalogue(tools, opts) {
    return [
      "# Valid channels: analysis, commentary, final. Channel must be included for every message.",
      "Calls to these tools must go to the commentary channel: 'functions'.",
      ...oneCallOnlyLines(opts, "Call at most one function, then wait for its result."),
      ...extraInstructionLines(opts),
      "",
      "# Tools",
      "",
      "## functions",
      "",
      "namespace functions {",
      "",
      ...tools.flatMap((t) => [renderFunction(t), ""]),
      "} // namespace functions",
    ].join("\n");
  },
  renderAssistantTurn({ content, calls }) {
    const prose = content?.trim() ?? "";
    const messages: string[] = [];
    if (prose !== "")
      messages.push(`${CHANNEL}${calls.length > 0 ? "commentary" : "final"}${MESSAGE}${prose}${END}`);
    for (const c of calls) {
      messages.push(
        `${CHANNEL}commentary to=${NAMESPACE}${c.name} ${CONSTRAIN}json${MESSAGE}${JSON.stringify(c.arguments)}${CALL}`,
      );
    }
    // The prompt already ends with `<|start|>assistant`; later messages open their own.
    return messages.join(`${START}assistant`);
  },
  renderToolResults(results) {
    return results
      .map(
        (r) =>
          `${START}${NAMESPACE}${r.name} to=assistant${CHANNEL}commentary${MESSAGE}${resultToText(r.result)}${END}`,
      )
      .join("");
  },
  createParser(opts) {
    const rules: StartRule[] = [
      {
        // `<|start|>assistant to=functions.f<|channel|>commentary json<|message|>`; another role is a hallucinated
        // tool message: its header is dropped and its text stays visible.
        first: "<",
        pattern: [
          START,
          WS,
          { ident: "role" },
          WS,
          "to=",
          { ident: "recipient" },
          WS,
          CHANNEL,
          { letters: true },
          ...HEADER_TAIL,
        ],
        open: (ctx, m) =>
          m.captures.role === "assistant" ? callRegion(ctx, m.text, m.captures.recipient!) : null,
      },
      { first: "<", pattern: [START, WS, { ident: "role" }], open: () => null },
      {
        first: "<",
        pattern: [
          CHANNEL,
          { letters: true },
          { ws: true, min: 1 },
          "to=",
          { ident: "recipient" },
          ...HEADER_TAIL,
        ],
        open: (ctx, m) => callRegion(ctx, m.text, m.captures.recipient!),
      },
      {
        first: "<",
        pattern: [CHANNEL, "analysis", ...HEADER_TAIL],
        open: (ctx) => new ReasoningRegion(ctx, END),
      },
      // final, or a commentary preamble: the message text is content.
      { first: "<", pattern: [CHANNEL, { letters: true }, ...HEADER_TAIL], open: () => null },
      {
        // Right after the `<|start|>assistant` prefix: ` to=functions.f<|channel|>commentary json<|message|>`.
        first: "t",
        pattern: ["to=", { ident: "recipient" }, WS, CHANNEL, { letters: true }, ...HEADER_TAIL],
        open: (ctx, m) => callRegion(ctx, m.text, m.captures.recipient!),
      },
      dropRule(END),
      dropRule(RETURN),
      dropRule(CALL),
      dropRule(MESSAGE),
      dropRule(CONSTRAIN),
    ];
    return new StreamParser(
      {
        rules,
        strayClosers: [CALL],
        initialRegion: (ctx, prefix) =>
          prefix.trimEnd().endsWith(`${CHANNEL}analysis${MESSAGE}`) ? new ReasoningRegion(ctx, END) : null,
      },
      opts,
    );
  },
};
