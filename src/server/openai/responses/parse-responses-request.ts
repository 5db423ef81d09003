import type { Tool } from "@modelcontextprotocol/server";
import { z } from "zod";
import type { AgentMessage, AgentToolCall } from "../../../core/agent-message.js";
import { decodeCallArguments } from "../../../protocols/decode-call-arguments.js";
import { badRequest } from "../../http-error.js";
import type { TurnRequest } from "../model-turn.js";
import {
  fieldOf,
  flag,
  functionToolFields,
  isObject,
  type Json,
  modelField,
  optionalString,
  parseV1Body,
  positiveInteger,
  readToolChoice,
  shown,
  type ToolChoiceShape,
  textContent,
  toTools,
  withCode,
} from "../parse-request-fields.js";
import {
  responseFormatOf,
  responsesSamplingFields,
  samplingOf,
  textFormatField,
} from "../parse-sampling-settings.js";

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
const contentText = textContent({
  parts: "text parts",
  wanted: '{"type": "input_text", "text": "…"}',
  partText: (part) => {
    if (!isObject(part)) return undefined;
    if (
      (part.type === "input_text" || part.type === "output_text" || part.type === "text") &&
      typeof part.text === "string"
    )
      return part.text;
    return part.type === "refusal" && typeof part.refusal === "string" ? part.refusal : undefined;
  },
  absent: "invalid",
});

const ITEM_TYPES = ["message", "function_call", "function_call_output", "reasoning"] as const;

/**
 * An input item: its type first (a message may leave it out when it has a role), then that type's fields. Anything
 * else (images, files, hosted tools' items, references to stored items) is refused with the item named.
 */
const inputItemSchema = z.preprocess(
  (item) =>
    isObject(item) && item.type === undefined && item.role !== undefined
      ? { ...item, type: "message" }
      : item,
  z
    .looseObject(
      {
        type: z.enum(ITEM_TYPES, {
          error: (issue) =>
            issue.input === "item_reference"
              ? `\`${fieldOf({ path: issue.path?.slice(0, -1) })}\` refers to a stored item; this server keeps no responses (store is not supported). Send the item itself.`
              : `\`${fieldOf(issue)}\` ${shown(issue.input)} is not supported: input items may be message, function_call, function_call_output or reasoning.`,
        }),
      },
      { error: (issue) => `\`${fieldOf(issue)}\` must be an input item object.` },
    )
    .pipe(
      z.discriminatedUnion("type", [
        z.looseObject({
          type: z.literal("message"),
          content: contentText,
          role: z.enum(["user", "assistant", "system", "developer"], {
            error: (issue) =>
              `\`${fieldOf(issue)}\` must be user, assistant, system or developer, got ${shown(issue.input)}.`,
          }),
        }),
        z.looseObject({
          type: z.literal("function_call"),
          call_id: z
            .string({ error: (issue) => `\`${fieldOf(issue)}\` must be the call's id (a non-empty string).` })
            .min(1),
          name: z
            .string({ error: (issue) => `\`${fieldOf(issue)}\` must be the called function's name.` })
            .min(1),
          arguments: z.unknown().optional(),
        }),
        z.looseObject({
          type: z.literal("function_call_output"),
          call_id: z.unknown().optional(),
          output: contentText,
        }),
        z.looseObject({ type: z.literal("reasoning") }),
      ]),
    ),
);

/** Fields that need state this server does not keep (it answers every request as with `store: false`). */
const unset = (value: unknown) => value === undefined || value === null;
const statefulFields = {
  previous_response_id: z
    .unknown()
    .optional()
    .refine(unset, {
      error:
        "This server keeps no responses, so `previous_response_id` cannot be continued: send the whole conversation in `input` (the earlier output items, then the new ones), as with store: false.",
      ...withCode("previous_response_not_found"),
    }),
  conversation: z
    .unknown()
    .optional()
    .refine(unset, {
      error:
        "`conversation` is not supported: this server keeps no conversations. Send the whole conversation in `input`.",
      ...withCode("unsupported_parameter"),
    }),
  background: z
    .unknown()
    .optional()
    .refine((value) => value !== true, {
      error:
        "`background` is not supported: this server answers while the request is open (use stream: true).",
      ...withCode("unsupported_parameter"),
    }),
  prompt: z
    .unknown()
    .optional()
    .refine(unset, {
      error: "`prompt` (a stored prompt template) is not supported: send `instructions` and `input`.",
      ...withCode("unsupported_parameter"),
    }),
};

/** The body, field by field in the order they are checked; fields with no use here pass through. */
const responsesRequestSchema = z.looseObject({
  model: modelField,
  ...statefulFields,
  instructions: optionalString,
  ...responsesSamplingFields,
  text: z.looseObject({ format: textFormatField }, { error: "`text` must be an object." }).nullish(),
  // A string is one user message.
  input: z.preprocess(
    (input) => (typeof input === "string" ? [{ type: "message", role: "user", content: input }] : input),
    z
      .array(inputItemSchema, { error: "`input` must be a string or a non-empty array of input items." })
      .min(1),
  ),
  tools: z
    .array(
      z.looseObject(
        {
          type: z.literal("function", {
            error: (issue) =>
              `\`${fieldOf({ path: issue.path?.slice(0, -1) })}\` must be {"type": "function", "name", "description"?, "parameters"?}; tools of type ${shown(issue.input)} (hosted or custom tools) are not supported.`,
          }),
          strict: flag,
          ...functionToolFields,
        },
        {
          error: (issue) =>
            `\`${fieldOf(issue)}\` must be {"type": "function", "name", "description"?, "parameters"?}; tools of type ${shown(issue.input)} (hosted or custom tools) are not supported.`,
        },
      ),
      { error: "`tools` must be an array of function tools." },
    )
    .nullish(),
  tool_choice: z.unknown().optional(),
  store: flag,
  max_output_tokens: positiveInteger,
  parallel_tool_calls: flag,
  stream: flag,
});

type InputItem = z.infer<typeof inputItemSchema>;

/**
 * `input` items → the conversation: messages by role; `function_call` items join the assistant turn before them (or
 * start one); `function_call_output` items answer a call made earlier, by `call_id`; `reasoning` items a client replays
 * are the model's own notes and are not sent back to it.
 */
function messagesOf(items: readonly InputItem[], instructions: string | undefined): AgentMessage[] {
  const messages: AgentMessage[] = instructions ? [{ role: "system", content: instructions }] : [];
  const callNames = new Map<string, string>();
  items.forEach((item, i) => {
    const at = `input[${i}]`;
    switch (item.type) {
      case "message": {
        if (item.role === "system" || item.role === "developer")
          messages.push({ role: "system", content: item.content });
        else if (item.role === "user") messages.push({ role: "user", content: item.content });
        else {
          const last = messages.at(-1);
          // An assistant's text after its calls (as a client may order them) stays in the same turn.
          if (last?.role === "assistant" && last.toolCalls?.length && !last.content)
            last.content = item.content;
          else messages.push({ role: "assistant", content: item.content });
        }
        return;
      }
      case "function_call": {
        const decoded = decodeCallArguments(item.arguments ?? "{}");
        if (!decoded.ok) throw badRequest(`\`${at}.arguments\`: ${decoded.error}.`, `${at}.arguments`);
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
          throw badRequest(
            `\`${at}.call_id\` ${shown(id)} answers no function_call item before it. Send the function_call item (or the whole earlier output) before its output.`,
            `${at}.call_id`,
          );
        messages.push({
          role: "tool",
          callId: id,
          name,
          result: { content: [{ type: "text", text: item.output }] },
        });
        return;
      }
      case "reasoning":
        return;
    }
  });
  if (!messages.some((m) => m.role !== "system"))
    throw badRequest("`input` holds no message for the model to answer.", "input");
  return messages;
}

/** The Responses API's `tool_choice`: its parts flat on the choice. */
const RESPONSES_TOOL_CHOICE: ToolChoiceShape = {
  functionPart: (raw) => ({ part: raw, path: "tool_choice" }),
  allowedPart: (raw) => ({ part: raw, path: "tool_choice" }),
  listedTool: (tool) => ({ part: tool, path: "" }),
  forms: '"none", "auto", "required", {"type": "function", "name": "…"} or {"type": "allowed_tools", …}',
};

/** Responses `tool_choice`: `none`/`auto`/`required`, `{type: "function", name}`, or `allowed_tools` narrowing `tools`. */
const toolChoiceOf = (raw: unknown, tools: Tool[]) => readToolChoice(raw, tools, RESPONSES_TOOL_CHOICE);

/**
 * Validate a Responses API body and convert it, before any header is sent. Stateless: every request carries its whole
 * conversation (`store` is accepted and nothing is kept). Sampling uses the chat API's ranges; `text.format`
 * json_schema becomes the answer format (a grammar on local models); fields with no use here (`include`, `reasoning`,
 * `truncation`, `service_tier`, `metadata`…) are accepted and ignored, as clients send them freely.
 */
export function parseResponsesRequest(body: unknown): ResponsesRequest {
  if (body === undefined) throw badRequest("The request body is not valid JSON.", null, "invalid_json");
  const request = parseV1Body(responsesRequestSchema, body);
  const instructions = request.instructions ?? undefined;
  const sampling = samplingOf(request);
  const responseFormat = responseFormatOf(request.text?.format);
  const messages = messagesOf(request.input, instructions);
  const { choice, tools } = toolChoiceOf(
    request.tool_choice,
    toTools(request.tools ?? [], (i) => `tools[${i}]`),
  );
  const maxTokens = request.max_output_tokens ?? undefined;
  const parallel = request.parallel_tool_calls ?? true;
  return {
    model: request.model,
    messages,
    tools,
    toolChoice: choice,
    parallelToolCalls: parallel,
    stream: request.stream ?? false,
    maxTokens,
    sampling,
    responseFormat,
    echo: {
      instructions: instructions ?? null,
      max_output_tokens: maxTokens ?? null,
      metadata: isObject(request.metadata) ? request.metadata : {},
      parallel_tool_calls: parallel,
      temperature: sampling?.temperature ?? null,
      text: { format: request.text?.format ?? { type: "text" } },
      tool_choice: request.tool_choice ?? (tools.length ? "auto" : "none"),
      tools: request.tools ?? [],
      top_p: sampling?.topP ?? null,
      user: typeof request.user === "string" ? request.user : null,
    },
  };
}
