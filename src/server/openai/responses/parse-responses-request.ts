import type { Tool } from "@modelcontextprotocol/server";
import type { AgentMessage, AgentToolCall } from "../../../core/agent-message.js";
import type { ToolChoice } from "../../../core/language-model.js";
import { decodeCallArguments } from "../../../protocols/decode-call-arguments.js";
import type { TurnRequest } from "../model-turn.js";
import { invalidRequest, OpenAIApiError } from "../openai-api-error.js";
import {
  functionTool,
  isObject,
  type Json,
  namedTool,
  optionalBoolean,
  positiveInteger,
} from "../parse-request-fields.js";
import { parseSamplingSettings, parseTextFormat } from "../parse-sampling-settings.js";

/** A `/v1/responses` request, validated and converted; `echo` is what the response object repeats of it. */
export interface ResponsesRequest extends TurnRequest {
  echo: {
    instructions: string | null;
    max_output_tokens: number | null;
    metadata: Json;
    parallel_tool_calls: boolean;
    temperature: number | null;
    text: { format: Json };
    tool_choice: unknown;
    tools: unknown[];
    top_p: number | null;
    user: string | null;
  };
}

/** The text of a message's `content`: a string, or text parts (`input_text`, `output_text`, `text`, `refusal`). */
function contentText(content: unknown, at: string): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content))
    throw invalidRequest(`\`${at}\` must be a string or an array of text parts.`, at);
  return content
    .map((part, i) => {
      if (isObject(part)) {
        if (
          (part.type === "input_text" || part.type === "output_text" || part.type === "text") &&
          typeof part.text === "string"
        )
          return part.text;
        if (part.type === "refusal" && typeof part.refusal === "string") return part.refusal;
      }
      const type = isObject(part) ? JSON.stringify(part.type) : "not an object";
      throw invalidRequest(
        `\`${at}[${i}]\` must be {"type": "input_text", "text": "…"} (got type ${type}): this server's models read text only.`,
        `${at}[${i}]`,
      );
    })
    .join("");
}

/**
 * `input` items → the conversation: messages by role; `function_call` items join the assistant turn before them (or
 * start one); `function_call_output` items answer a call made earlier, by `call_id`; `reasoning` items a client replays
 * are the model's own notes and are not sent back to it. Anything else (images, files, hosted tools' items, references
 * to stored items) is refused with the item named.
 */
function parseInput(raw: unknown, instructions: string | undefined): AgentMessage[] {
  const messages: AgentMessage[] = instructions ? [{ role: "system", content: instructions }] : [];
  if (typeof raw === "string") return [...messages, { role: "user", content: raw }];
  if (!Array.isArray(raw) || raw.length === 0)
    throw invalidRequest("`input` must be a string or a non-empty array of input items.", "input");
  const callNames = new Map<string, string>();
  raw.forEach((item, i) => {
    const at = `input[${i}]`;
    if (!isObject(item)) throw invalidRequest(`\`${at}\` must be an input item object.`, at);
    const type = item.type ?? (item.role !== undefined ? "message" : undefined);
    switch (type) {
      case "message": {
        const text = contentText(item.content, `${at}.content`);
        if (item.role === "system" || item.role === "developer")
          messages.push({ role: "system", content: text });
        else if (item.role === "user") messages.push({ role: "user", content: text });
        else if (item.role === "assistant") {
          const last = messages.at(-1);
          // An assistant's text after its calls (as a client may order them) stays in the same turn.
          if (last?.role === "assistant" && last.toolCalls?.length && !last.content) last.content = text;
          else messages.push({ role: "assistant", content: text });
        } else
          throw invalidRequest(
            `\`${at}.role\` must be user, assistant, system or developer, got ${JSON.stringify(item.role)}.`,
            `${at}.role`,
          );
        return;
      }
      case "function_call": {
        if (typeof item.call_id !== "string" || item.call_id === "")
          throw invalidRequest(
            `\`${at}.call_id\` must be the call's id (a non-empty string).`,
            `${at}.call_id`,
          );
        if (typeof item.name !== "string" || item.name === "")
          throw invalidRequest(`\`${at}.name\` must be the called function's name.`, `${at}.name`);
        const decoded = decodeCallArguments(item.arguments ?? "{}");
        if (!decoded.ok) throw invalidRequest(`\`${at}.arguments\`: ${decoded.error}.`, `${at}.arguments`);
        const call: AgentToolCall = { id: item.call_id, name: item.name, arguments: decoded.value };
        callNames.set(item.call_id, item.name);
        const last = messages.at(-1);
        if (last?.role === "assistant") last.toolCalls = [...(last.toolCalls ?? []), call];
        else messages.push({ role: "assistant", content: "", toolCalls: [call] });
        return;
      }
      case "function_call_output": {
        const id = item.call_id;
        const name = typeof id === "string" ? callNames.get(id) : undefined;
        if (typeof id !== "string" || name === undefined)
          throw invalidRequest(
            `\`${at}.call_id\` ${JSON.stringify(id)} answers no function_call item before it. Send the function_call item (or the whole earlier output) before its output.`,
            `${at}.call_id`,
          );
        const text = contentText(item.output, `${at}.output`);
        messages.push({ role: "tool", callId: id, name, result: { content: [{ type: "text", text }] } });
        return;
      }
      case "reasoning":
        return;
      case "item_reference":
        throw invalidRequest(
          `\`${at}\` refers to a stored item; this server keeps no responses (store is not supported). Send the item itself.`,
          `${at}.type`,
        );
      default:
        throw invalidRequest(
          `\`${at}.type\` ${JSON.stringify(type)} is not supported: input items may be message, function_call, function_call_output or reasoning.`,
          `${at}.type`,
        );
    }
  });
  if (!messages.some((m) => m.role !== "system"))
    throw invalidRequest("`input` holds no message for the model to answer.", "input");
  return messages;
}

function parseTools(raw: unknown): Tool[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw invalidRequest("`tools` must be an array of function tools.", "tools");
  const seen = new Set<string>();
  return raw.map((t, i) => {
    const at = `tools[${i}]`;
    if (!isObject(t) || t.type !== "function")
      throw invalidRequest(
        `\`${at}\` must be {"type": "function", "name", "description"?, "parameters"?}; tools of type ${JSON.stringify(isObject(t) ? t.type : t)} (hosted or custom tools) are not supported.`,
        `${at}.type`,
      );
    if (t.strict !== undefined && t.strict !== null && typeof t.strict !== "boolean")
      throw invalidRequest(`\`${at}.strict\` must be true or false.`, `${at}.strict`);
    return functionTool(t, at, seen);
  });
}

/** Responses `tool_choice`: `none`/`auto`/`required`, `{type: "function", name}`, or `allowed_tools` narrowing `tools`. */
function parseToolChoice(raw: unknown, tools: Tool[]): { choice: ToolChoice; tools: Tool[] } {
  if (raw === undefined || raw === null) return { choice: tools.length ? "auto" : "none", tools };
  if (raw === "none" || raw === "auto") return { choice: raw, tools };
  if (raw === "required") {
    if (!tools.length)
      throw invalidRequest('tool_choice "required" needs at least one tool in `tools`.', "tool_choice");
    return { choice: "required", tools };
  }
  if (isObject(raw) && raw.type === "function")
    return { choice: { name: namedTool(raw.name, tools, "tool_choice.name") }, tools };
  if (isObject(raw) && raw.type === "allowed_tools") {
    if (!Array.isArray(raw.tools) || raw.tools.length === 0)
      throw invalidRequest("`tool_choice.tools` must list at least one tool.", "tool_choice.tools");
    const names = raw.tools.map((t, i) =>
      namedTool(isObject(t) ? t.name : undefined, tools, `tool_choice.tools[${i}].name`),
    );
    const mode = raw.mode ?? "auto";
    if (mode !== "auto" && mode !== "required")
      throw invalidRequest('`tool_choice.mode` must be "auto" or "required".', "tool_choice.mode");
    return { choice: mode, tools: tools.filter((t) => names.includes(t.name)) };
  }
  throw invalidRequest(
    'tool_choice must be "none", "auto", "required", {"type": "function", "name": "…"} or {"type": "allowed_tools", …}.',
    "tool_choice",
  );
}

/** Fields that need state this server does not keep (it answers every request as with `store: false`). */
function refuseStatefulFields(body: Json): void {
  if (body.previous_response_id !== undefined && body.previous_response_id !== null)
    throw new OpenAIApiError(
      400,
      "This server keeps no responses, so `previous_response_id` cannot be continued: send the whole conversation in `input` (the earlier output items, then the new ones), as with store: false.",
      "invalid_request_error",
      "previous_response_id",
      "previous_response_not_found",
    );
  if (body.conversation !== undefined && body.conversation !== null)
    throw invalidRequest(
      "`conversation` is not supported: this server keeps no conversations. Send the whole conversation in `input`.",
      "conversation",
      "unsupported_parameter",
    );
  if (body.background === true)
    throw invalidRequest(
      "`background` is not supported: this server answers while the request is open (use stream: true).",
      "background",
      "unsupported_parameter",
    );
  if (body.prompt !== undefined && body.prompt !== null)
    throw invalidRequest(
      "`prompt` (a stored prompt template) is not supported: send `instructions` and `input`.",
      "prompt",
      "unsupported_parameter",
    );
}

/**
 * Validate a Responses API body and convert it, before any header is sent. Stateless: every request carries its whole
 * conversation (`store` is accepted and nothing is kept). Sampling uses the chat API's ranges; `text.format`
 * json_schema becomes the answer format (a grammar on local models); fields with no use here (`include`, `reasoning`,
 * `truncation`, `service_tier`, `metadata`…) are accepted and ignored, as clients send them freely.
 */
export function parseResponsesRequest(body: unknown): ResponsesRequest {
  if (body === undefined) throw invalidRequest("The request body is not valid JSON.");
  if (!isObject(body)) throw invalidRequest("The request body must be a JSON object.");
  if (typeof body.model !== "string" || body.model === "")
    throw invalidRequest("`model` is required: one of the names GET /v1/models lists.", "model");
  refuseStatefulFields(body);
  if (body.instructions !== undefined && body.instructions !== null && typeof body.instructions !== "string")
    throw invalidRequest("`instructions` must be a string.", "instructions");
  const instructions = typeof body.instructions === "string" ? body.instructions : undefined;
  const sampling = parseSamplingSettings({
    temperature: body.temperature,
    top_p: body.top_p,
    top_logprobs: body.top_logprobs,
  });
  const text = body.text;
  if (text !== undefined && text !== null && !isObject(text))
    throw invalidRequest("`text` must be an object.", "text");
  const responseFormat = parseTextFormat(isObject(text) ? text.format : undefined);
  const messages = parseInput(body.input, instructions);
  const { choice, tools } = parseToolChoice(body.tool_choice, parseTools(body.tools));
  optionalBoolean(body.store, "store", false);
  const maxTokens = positiveInteger(body.max_output_tokens, "max_output_tokens");
  const parallel = optionalBoolean(body.parallel_tool_calls, "parallel_tool_calls", true);
  return {
    model: body.model,
    messages,
    tools,
    toolChoice: choice,
    parallelToolCalls: parallel,
    stream: optionalBoolean(body.stream, "stream", false),
    maxTokens,
    sampling,
    responseFormat,
    echo: {
      instructions: instructions ?? null,
      max_output_tokens: maxTokens ?? null,
      metadata: isObject(body.metadata) ? body.metadata : {},
      parallel_tool_calls: parallel,
      temperature: sampling?.temperature ?? null,
      text: { format: isObject(text) && isObject(text.format) ? text.format : { type: "text" } },
      tool_choice: body.tool_choice ?? (tools.length ? "auto" : "none"),
      tools: Array.isArray(body.tools) ? body.tools : [],
      top_p: sampling?.topP ?? null,
      user: typeof body.user === "string" ? body.user : null,
    },
  };
}
