import type { Tool } from "@modelcontextprotocol/server";
import type { AgentMessage, AgentToolCall } from "../../core/agent-message.js";
import type { ToolChoice } from "../../core/language-model.js";
import { decodeCallArguments } from "../../protocols/decode-call-arguments.js";
import type { TurnRequest } from "./model-turn.js";
import { invalidRequest } from "./openai-api-error.js";
import {
  functionTool,
  isObject,
  namedTool,
  optionalBoolean,
  positiveInteger,
} from "./parse-request-fields.js";
import { parseResponseFormat, parseSamplingSettings } from "./parse-sampling-settings.js";

/** A `/v1/chat/completions` request, validated and converted to what a LanguageModel takes. */
export interface ChatRequest extends TurnRequest {
  includeUsage: boolean;
}

/** The text of `content`: a string, or text parts (`[{type:"text", text}]`). Other parts are refused. */
function textContent(content: unknown, param: string, optional: boolean): string {
  if (content === undefined || content === null) {
    if (optional) return "";
    throw invalidRequest(`\`${param}\` is required.`, param);
  }
  if (typeof content === "string") return content;
  if (!Array.isArray(content))
    throw invalidRequest(`\`${param}\` must be a string or an array of text parts.`, param);
  return content
    .map((part, i) => {
      if (!isObject(part) || part.type !== "text" || typeof part.text !== "string") {
        const type = isObject(part) ? JSON.stringify(part.type) : "not an object";
        throw invalidRequest(
          `\`${param}[${i}]\` must be {"type": "text", "text": "…"} (got type ${type}): this server's models read text only.`,
          `${param}[${i}]`,
        );
      }
      return part.text;
    })
    .join("");
}

function parseToolCalls(raw: unknown, param: string): AgentToolCall[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw invalidRequest(`\`${param}\` must be an array.`, param);
  return raw.map((call, i) => {
    const at = `${param}[${i}]`;
    if (!isObject(call) || typeof call.id !== "string" || call.id === "")
      throw invalidRequest(`\`${at}.id\` must be the call's id (a non-empty string).`, `${at}.id`);
    if (call.type !== undefined && call.type !== "function")
      throw invalidRequest(`\`${at}.type\` must be "function".`, `${at}.type`);
    const fn = call.function;
    if (!isObject(fn) || typeof fn.name !== "string" || fn.name === "")
      throw invalidRequest(
        `\`${at}.function.name\` must be the called function's name.`,
        `${at}.function.name`,
      );
    const decoded = decodeCallArguments(fn.arguments);
    if (!decoded.ok)
      throw invalidRequest(`\`${at}.function.arguments\`: ${decoded.error}.`, `${at}.function.arguments`);
    return { id: call.id, name: fn.name, arguments: decoded.value };
  });
}

function parseMessages(raw: unknown): AgentMessage[] {
  if (!Array.isArray(raw) || raw.length === 0)
    throw invalidRequest("`messages` must be a non-empty array of chat messages.", "messages");
  const callNames = new Map<string, string>();
  return raw.map((m, i): AgentMessage => {
    const at = `messages[${i}]`;
    if (!isObject(m)) throw invalidRequest(`\`${at}\` must be an object with a role.`, at);
    switch (m.role) {
      case "system":
      case "developer":
        return { role: "system", content: textContent(m.content, `${at}.content`, false) };
      case "user":
        return { role: "user", content: textContent(m.content, `${at}.content`, false) };
      case "assistant": {
        // content may be null, "", absent or parts: clients replay tool-call turns every way (openai-compat notes §3.8).
        const toolCalls = parseToolCalls(m.tool_calls, `${at}.tool_calls`);
        for (const call of toolCalls) callNames.set(call.id, call.name);
        const content = textContent(m.content, `${at}.content`, true);
        return { role: "assistant", content, ...(toolCalls.length ? { toolCalls } : {}) };
      }
      case "tool": {
        if (typeof m.tool_call_id !== "string" || m.tool_call_id === "")
          throw invalidRequest(
            `\`${at}.tool_call_id\` must name the call this result answers.`,
            `${at}.tool_call_id`,
          );
        const name = callNames.get(m.tool_call_id);
        if (name === undefined)
          throw invalidRequest(
            `\`${at}.tool_call_id\` "${m.tool_call_id}" answers no tool call of an earlier assistant message. ` +
              "Send the assistant message with its tool_calls before the tool results.",
            `${at}.tool_call_id`,
          );
        const text = textContent(m.content, `${at}.content`, false);
        return { role: "tool", callId: m.tool_call_id, name, result: { content: [{ type: "text", text }] } };
      }
      default:
        throw invalidRequest(
          `\`${at}.role\` must be system, developer, user, assistant or tool, got ${JSON.stringify(m.role)}.`,
          `${at}.role`,
        );
    }
  });
}

function parseTools(raw: unknown): Tool[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw invalidRequest("`tools` must be an array of function tools.", "tools");
  const seen = new Set<string>();
  return raw.map((t, i) => {
    const at = `tools[${i}]`;
    if (!isObject(t) || t.type !== "function" || !isObject(t.function))
      throw invalidRequest(
        `\`${at}\` must be {"type": "function", "function": {"name", "description"?, "parameters"?}}; other tool types are not supported.`,
        `${at}.type`,
      );
    return functionTool(t.function, `${at}.function`, seen);
  });
}

/** tool_choice → ours; `allowed_tools` narrows `tools` to the listed ones. Default: auto with tools, none without. */
function parseToolChoice(raw: unknown, tools: Tool[]): { choice: ToolChoice; tools: Tool[] } {
  if (raw === undefined || raw === null) return { choice: tools.length ? "auto" : "none", tools };
  if (raw === "none" || raw === "auto") return { choice: raw, tools };
  if (raw === "required") {
    if (!tools.length)
      throw invalidRequest('tool_choice "required" needs at least one tool in `tools`.', "tool_choice");
    return { choice: "required", tools };
  }
  if (isObject(raw) && raw.type === "function" && isObject(raw.function))
    return { choice: { name: namedTool(raw.function.name, tools, "tool_choice.function.name") }, tools };
  if (isObject(raw) && raw.type === "allowed_tools" && isObject(raw.allowed_tools)) {
    const allowed = raw.allowed_tools;
    if (!Array.isArray(allowed.tools) || allowed.tools.length === 0)
      throw invalidRequest(
        "`tool_choice.allowed_tools.tools` must list at least one tool.",
        "tool_choice.allowed_tools.tools",
      );
    const names = allowed.tools.map((t, i) =>
      namedTool(
        isObject(t) && isObject(t.function) ? t.function.name : undefined,
        tools,
        `tool_choice.allowed_tools.tools[${i}].function.name`,
      ),
    );
    const mode = allowed.mode ?? "auto";
    if (mode !== "auto" && mode !== "required")
      throw invalidRequest(
        '`tool_choice.allowed_tools.mode` must be "auto" or "required".',
        "tool_choice.allowed_tools.mode",
      );
    return { choice: mode, tools: tools.filter((t) => names.includes(t.name)) };
  }
  throw invalidRequest(
    'tool_choice must be "none", "auto", "required", {"type": "function", "function": {"name": "…"}} or an allowed_tools choice.',
    "tool_choice",
  );
}

/**
 * Validate a chat completions body and convert it. Everything is checked here, before any response header is sent;
 * sampling settings and `response_format` are validated with OpenAI's ranges and go to the model; `logprobs` and
 * `n` > 1 are refused; fields this server has no use for (user, metadata, a replayed `refusal`…) are ignored, as
 * OpenAI's clients send them freely.
 */
export function parseChatRequest(body: unknown): ChatRequest {
  if (!isObject(body)) throw invalidRequest("The request body must be a JSON object.");
  if (typeof body.model !== "string" || body.model === "")
    throw invalidRequest("`model` is required: one of the names GET /v1/models lists.", "model");
  const n = positiveInteger(body.n, "n");
  if (n !== undefined && n !== 1) throw invalidRequest("Only n = 1 is supported.", "n");
  const sampling = parseSamplingSettings(body);
  const responseFormat = parseResponseFormat(body.response_format);
  const messages = parseMessages(body.messages);
  const { choice, tools } = parseToolChoice(body.tool_choice, parseTools(body.tools));
  const stream = optionalBoolean(body.stream, "stream", false);
  const options = body.stream_options;
  if (options !== undefined && options !== null && !isObject(options))
    throw invalidRequest("`stream_options` must be an object.", "stream_options");
  const maxTokens =
    positiveInteger(body.max_completion_tokens, "max_completion_tokens") ??
    positiveInteger(body.max_tokens, "max_tokens");
  return {
    model: body.model,
    messages,
    tools,
    toolChoice: choice,
    parallelToolCalls: optionalBoolean(body.parallel_tool_calls, "parallel_tool_calls", true),
    stream,
    includeUsage: stream && optionalBoolean(options?.include_usage, "stream_options.include_usage", false),
    maxTokens,
    sampling,
    responseFormat,
  };
}
