import type { Tool } from "@modelcontextprotocol/server";
import type { AgentMessage, AgentToolCall } from "../../core/agent-message.js";
import type { SamplingSettings, ToolChoice } from "../../core/language-model.js";
import type { TurnRequest } from "../openai/model-turn.js";
import { invalidRequest } from "../openai/openai-api-error.js";
import {
  functionTool,
  isObject,
  type Json,
  namedTool,
  optionalBoolean,
  positiveInteger,
} from "../openai/parse-request-fields.js";

/** A `/v1/messages` request, validated and converted. */
export type MessagesRequest = TurnRequest;

/** Text blocks → their text; `cache_control` and citations are accepted and ignored. Other blocks are refused. */
function blocksText(content: unknown, at: string): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content))
    throw invalidRequest(`\`${at}\` must be a string or an array of text blocks.`, at);
  return content
    .map((block, i) => {
      if (isObject(block) && block.type === "text" && typeof block.text === "string") return block.text;
      const type = isObject(block) ? JSON.stringify(block.type) : "not an object";
      throw invalidRequest(
        `\`${at}[${i}]\` must be {"type": "text", "text": "…"} (got type ${type}): this server's models read text only.`,
        `${at}[${i}]`,
      );
    })
    .join("");
}

/** `system`: a string or text blocks. */
function parseSystem(raw: unknown): AgentMessage[] {
  if (raw === undefined || raw === null) return [];
  const text = blocksText(raw, "system");
  return text ? [{ role: "system", content: text }] : [];
}

/**
 * `messages` → the conversation. A user turn's `tool_result` blocks become tool results (they must answer a `tool_use`
 * of the assistant turn right before, as Anthropic requires), its text blocks a user message after them; an assistant
 * turn's `tool_use` blocks become its calls. `thinking` blocks a client replays are the model's own notes and are not
 * sent back to it; images, documents and server-tool blocks are refused.
 */
function parseMessages(raw: unknown): AgentMessage[] {
  if (!Array.isArray(raw) || raw.length === 0)
    throw invalidRequest("`messages` must be a non-empty array of user and assistant messages.", "messages");
  const out: AgentMessage[] = [];
  let lastCalls = new Map<string, string>();
  raw.forEach((m, i) => {
    const at = `messages[${i}]`;
    if (!isObject(m)) throw invalidRequest(`\`${at}\` must be an object with a role.`, at);
    const blocks: unknown[] =
      typeof m.content === "string"
        ? [{ type: "text", text: m.content }]
        : Array.isArray(m.content)
          ? m.content
          : [];
    if (typeof m.content !== "string" && !Array.isArray(m.content))
      throw invalidRequest(
        `\`${at}.content\` must be a string or an array of content blocks.`,
        `${at}.content`,
      );
    if (m.role === "assistant") {
      let text = "";
      const calls: AgentToolCall[] = [];
      blocks.forEach((block, k) => {
        const bat = `${at}.content[${k}]`;
        if (!isObject(block)) throw invalidRequest(`\`${bat}\` must be a content block.`, bat);
        if (block.type === "text" && typeof block.text === "string") text += block.text;
        else if (block.type === "tool_use") {
          if (typeof block.id !== "string" || block.id === "")
            throw invalidRequest(`\`${bat}.id\` must be the call's id.`, `${bat}.id`);
          if (typeof block.name !== "string" || block.name === "")
            throw invalidRequest(`\`${bat}.name\` must be the called tool's name.`, `${bat}.name`);
          if (block.input !== undefined && !isObject(block.input))
            throw invalidRequest(`\`${bat}.input\` must be an object.`, `${bat}.input`);
          calls.push({ id: block.id, name: block.name, arguments: isObject(block.input) ? block.input : {} });
        } else if (block.type !== "thinking" && block.type !== "redacted_thinking")
          throw invalidRequest(
            `\`${bat}.type\` ${JSON.stringify(block.type)} is not supported in an assistant message: use text and tool_use blocks.`,
            `${bat}.type`,
          );
      });
      lastCalls = new Map(calls.map((c) => [c.id, c.name]));
      out.push({ role: "assistant", content: text, ...(calls.length ? { toolCalls: calls } : {}) });
      return;
    }
    if (m.role !== "user")
      throw invalidRequest(
        `\`${at}.role\` must be "user" or "assistant", got ${JSON.stringify(m.role)}.`,
        `${at}.role`,
      );
    let text = "";
    blocks.forEach((block, k) => {
      const bat = `${at}.content[${k}]`;
      if (!isObject(block)) throw invalidRequest(`\`${bat}\` must be a content block.`, bat);
      if (block.type === "text" && typeof block.text === "string") text += block.text;
      else if (block.type === "tool_result") {
        const id = block.tool_use_id;
        const name = typeof id === "string" ? lastCalls.get(id) : undefined;
        if (typeof id !== "string" || name === undefined)
          throw invalidRequest(
            `\`${bat}.tool_use_id\` ${JSON.stringify(id)}: each tool_result block must have a corresponding tool_use block in the previous message.`,
            `${bat}.tool_use_id`,
          );
        const result = block.content === undefined ? "" : blocksText(block.content, `${bat}.content`);
        out.push({
          role: "tool",
          callId: id,
          name,
          result: {
            content: [{ type: "text", text: result }],
            ...(block.is_error === true ? { isError: true } : {}),
          },
        });
      } else
        throw invalidRequest(
          `\`${bat}.type\` ${JSON.stringify(block.type)} is not supported: user messages may hold text and tool_result blocks (this server's models read text only).`,
          `${bat}.type`,
        );
    });
    lastCalls = new Map();
    if (text || !blocks.some((b) => isObject(b) && b.type === "tool_result"))
      out.push({ role: "user", content: text });
  });
  return out;
}

function parseTools(raw: unknown): Tool[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw invalidRequest("`tools` must be an array of tools.", "tools");
  const seen = new Set<string>();
  return raw.map((t, i) => {
    const at = `tools[${i}]`;
    if (!isObject(t)) throw invalidRequest(`\`${at}\` must be a tool object.`, at);
    if (t.type !== undefined && t.type !== null && t.type !== "custom")
      throw invalidRequest(
        `\`${at}.type\` ${JSON.stringify(t.type)} (a server tool) is not supported: give client tools as {"name", "description"?, "input_schema"}.`,
        `${at}.type`,
      );
    if (!isObject(t.input_schema))
      throw invalidRequest(`\`${at}.input_schema\` must be a JSON Schema object.`, `${at}.input_schema`);
    return functionTool(t, at, seen, "input_schema");
  });
}

/**
 * `tool_choice`: `{type: "auto"}`, `{type: "any"}` (= required), `{type: "tool", name}`, `{type: "none"}`; with
 * `disable_parallel_tool_use: true`, at most one call. Default: auto with tools, none without.
 */
function parseToolChoice(raw: unknown, tools: Tool[]): { choice: ToolChoice; parallel: boolean } {
  if (raw === undefined || raw === null) return { choice: tools.length ? "auto" : "none", parallel: true };
  if (!isObject(raw))
    throw invalidRequest('`tool_choice` must be an object such as {"type": "auto"}.', "tool_choice");
  const parallel = !optionalBoolean(
    raw.disable_parallel_tool_use,
    "tool_choice.disable_parallel_tool_use",
    false,
  );
  switch (raw.type) {
    case "auto":
      return { choice: tools.length ? "auto" : "none", parallel };
    case "none":
      return { choice: "none", parallel };
    case "any":
      if (!tools.length)
        throw invalidRequest(
          'tool_choice {"type": "any"} needs at least one tool in `tools`.',
          "tool_choice",
        );
      return { choice: "required", parallel };
    case "tool":
      return { choice: { name: namedTool(raw.name, tools, "tool_choice.name") }, parallel };
    default:
      throw invalidRequest('`tool_choice.type` must be "auto", "any", "tool" or "none".', "tool_choice.type");
  }
}

/** temperature (0–1, Anthropic's range), top_p, stop_sequences; `top_k` is accepted and left to the model. */
function parseSampling(body: Json): SamplingSettings | undefined {
  const settings: SamplingSettings = {};
  for (const [param, key] of [
    ["temperature", "temperature"],
    ["top_p", "topP"],
  ] as const) {
    const value = body[param];
    if (value === undefined || value === null) continue;
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || value > 1)
      throw invalidRequest(`\`${param}\` must be a number from 0 to 1, got ${JSON.stringify(value)}.`, param);
    settings[key] = value;
  }
  const stops = body.stop_sequences;
  if (stops !== undefined && stops !== null) {
    if (!Array.isArray(stops) || stops.some((s) => typeof s !== "string"))
      throw invalidRequest("`stop_sequences` must be an array of strings.", "stop_sequences");
    const kept = (stops as string[]).filter((s) => s !== "");
    if (kept.length) settings.stop = kept;
  }
  return Object.keys(settings).length ? settings : undefined;
}

/**
 * Validate a Messages API body and convert it, before any header is sent. `max_tokens` is required (as Anthropic
 * requires it); `thinking`, `metadata`, `service_tier` and `cache_control` are accepted and ignored.
 */
export function parseMessagesRequest(body: unknown): MessagesRequest {
  if (body === undefined) throw invalidRequest("The request body is not valid JSON.");
  if (!isObject(body)) throw invalidRequest("The request body must be a JSON object.");
  if (typeof body.model !== "string" || body.model === "")
    throw invalidRequest("`model` is required: one of the names GET /v1/models lists.", "model");
  const maxTokens = positiveInteger(body.max_tokens, "max_tokens");
  if (maxTokens === undefined) throw invalidRequest("`max_tokens` is required.", "max_tokens");
  const sampling = parseSampling(body);
  const messages = [...parseSystem(body.system), ...parseMessages(body.messages)];
  const tools = parseTools(body.tools);
  const { choice, parallel } = parseToolChoice(body.tool_choice, tools);
  return {
    model: body.model,
    messages,
    tools,
    toolChoice: choice,
    parallelToolCalls: parallel,
    stream: optionalBoolean(body.stream, "stream", false),
    maxTokens,
    sampling,
    responseFormat: undefined,
  };
}
