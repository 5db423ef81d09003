import type { DecodedItem } from "../core/call-body-region.js";
import { jsonCallsDecoder } from "../core/json-call-decoder.js";
import type { PatternToken } from "../core/match-pattern.js";
import { resultToJsonValue, toolToFunctionJson } from "../core/render-helpers.js";
import type { ToolCallProtocol } from "../protocol.js";
import { extraInstructionLines } from "../render/catalogue-option-lines.js";
import { jsonBodyRules } from "./shared-json-body-rules.js";
import { createThinkingParser } from "./shared-thinking-parser.js";

const WS: PatternToken = { ws: true };
const EXAMPLE = '{"type":"tool_call","name":"<tool_name>","arguments":{…}}';

/** JSON Schema type names: `{"type": "object", …}` in prose is a schema, not an event line. */
const SCHEMA_TYPES: ReadonlySet<string> = new Set([
  "object",
  "string",
  "number",
  "integer",
  "boolean",
  "array",
  "null",
  "function",
]);

function select(v: unknown): unknown[] | DecodedItem[] | { error: string } {
  const o = v as Record<string, unknown>;
  if (!o || typeof o !== "object" || Array.isArray(o)) return { error: "each line must be one JSON object" };
  if (o.type === "final_answer") {
    const c = o.content ?? o.answer ?? o.text ?? "";
    return [{ kind: "content", text: typeof c === "string" ? c : JSON.stringify(c) }];
  }
  if (o.type === "tool_observation") {
    return [
      {
        kind: "error",
        message:
          "tool_observation lines are written by the tool runner, not by you; emit a tool_call line and wait for its observation",
      },
    ];
  }
  if (o.type === "tool_call" || o.type === undefined) return [o];
  if (typeof o.type === "string" && !SCHEMA_TYPES.has(o.type)) {
    // Any other event line (`thought`, `plan`, `reflection`, …) is the model thinking aloud: reasoning.
    const { type: _type, ...rest } = o;
    const t = o.content ?? o.text ?? o.thought ?? o[o.type];
    return [{ kind: "reasoning", text: typeof t === "string" ? t : JSON.stringify(rest) }];
  }
  return { error: `unknown "type" ${JSON.stringify(o.type)}; use "tool_call" or "final_answer"` };
}

/**
 * JSON Lines protocol (reference 003): `{"type":"tool_call",…}` lines call tools, a
 * `{"type":"final_answer","content":…}` line answers (its content is the reply), results come back as
 * `{"type":"tool_observation",…}` lines.
 */
export const jsonlEventsProtocol: ToolCallProtocol = {
  id: "jsonl_events",
  description: 'JSON Lines {"type":"tool_call"|"final_answer"|"tool_observation"}',
  resultRole: "user",
  stopSequences: ['{"type":"tool_observation"', '{"type": "tool_observation"'],
  callStartMarkers: ['{"type":"tool_call"', '{"type": "tool_call"'],
  callBody: "json-call",
  renderCatalogue(tools, opts) {
    return [
      "You can call tools by emitting a single line of JSON using this schema:",
      '{"type":"tool_call","name":"<tool_name>","arguments":{...}}',
      "When you are done, emit:",
      '{"type":"final_answer","content":"<answer text>"}',
      "Rules:",
      "- Output only JSON on tool lines (no prose), one JSON object per line.",
      "- Keep arguments strictly valid JSON matching the tool's input schema.",
      `- After ${opts?.parallel === false ? "a tool_call" : "your tool_call lines"}, wait for an observation to continue.`,
      "- Prefer direct answers when confident; use tools when needed.",
      "",
      "Tools:",
      ...tools.map((t) => JSON.stringify(toolToFunctionJson(t))),
      ...extraInstructionLines(opts),
    ].join("\n");
  },
  renderAssistantTurn({ content, calls }) {
    if (calls.length === 0) return JSON.stringify({ type: "final_answer", content: content ?? "" });
    const lines = calls.map((c) =>
      JSON.stringify({ type: "tool_call", name: c.name, arguments: c.arguments }),
    );
    const prose = content?.trim();
    return prose ? `${prose}\n${lines.join("\n")}` : lines.join("\n");
  },
  renderToolResults(results) {
    return results
      .map((r) =>
        JSON.stringify({
          type: "tool_observation",
          name: r.name,
          content: resultToJsonValue(r.result),
          ...(r.result.isError ? { is_error: true } : {}),
        }),
      )
      .join("\n");
  },
  createParser(opts) {
    const head: PatternToken[] = ['"type"', WS, ":", WS, '"', { ident: "type" }, '"'];
    const rules = jsonBodyRules(head, {
      isCallPath: (p) => p.length === 0,
      nameFrom: (m) => (m.type === "tool_call" ? m.name : undefined),
      decode: jsonCallsDecoder(EXAMPLE, select),
      // `{"type": "object", …}` in prose (a schema) is no event line: it comes back as written.
      revertUndecodable: true,
      example: EXAMPLE,
      what: "the JSON line",
    });
    return createThinkingParser(rules, opts);
  },
};
