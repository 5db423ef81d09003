import type { Tool } from "@modelcontextprotocol/server";
import { z } from "zod";
import type { AgentMessage, AgentToolCall } from "../../core/agent-message.js";
import { decodeCallArguments } from "../../protocols/decode-call-arguments.js";
import { badRequest } from "../http-error.js";
import type { TurnRequest } from "./model-turn.js";
import {
  fieldOf,
  flag,
  functionToolFields,
  isObject,
  modelField,
  parseV1Body,
  positiveInteger,
  readToolChoice,
  shown,
  type ToolChoiceShape,
  textContent,
  toTools,
} from "./parse-request-fields.js";
import {
  responseFormatField,
  responseFormatOf,
  samplingFields,
  samplingOf,
} from "./parse-sampling-settings.js";

/** A `/v1/chat/completions` request, validated and converted to what a LanguageModel takes. */
export interface ChatRequest extends TurnRequest {
  includeUsage: boolean;
}

/** The text of `content`: a string, or text parts (`[{type:"text", text}]`). Other parts are refused. */
function text(absent: "empty" | "required") {
  return textContent({
    parts: "text parts",
    wanted: '{"type": "text", "text": "…"}',
    partText: (part) =>
      isObject(part) && part.type === "text" && typeof part.text === "string" ? part.text : undefined,
    absent,
  });
}

const toolCallSchema = z.looseObject(
  {
    id: z
      .string({ error: (issue) => `\`${fieldOf(issue)}\` must be the call's id (a non-empty string).` })
      .min(1),
    type: z.literal("function", { error: (issue) => `\`${fieldOf(issue)}\` must be "function".` }).optional(),
    function: z.looseObject(
      {
        name: z
          .string({ error: (issue) => `\`${fieldOf(issue)}\` must be the called function's name.` })
          .min(1),
        arguments: z.unknown().optional(),
      },
      { error: (issue) => `\`${fieldOf(issue)}\` must be {"name": "…", "arguments": "…"}.` },
    ),
  },
  { error: (issue) => `\`${fieldOf(issue)}\` must be a tool call: {"id", "type": "function", "function"}.` },
);

const ROLES = ["system", "developer", "user", "assistant", "tool"] as const;

/** A chat message: its role first, then the fields of that role. */
const messageSchema = z
  .looseObject(
    {
      role: z.enum(ROLES, {
        error: (issue) =>
          `\`${fieldOf(issue)}\` must be system, developer, user, assistant or tool, got ${shown(issue.input)}.`,
      }),
    },
    { error: (issue) => `\`${fieldOf(issue)}\` must be an object with a role.` },
  )
  .pipe(
    z.discriminatedUnion("role", [
      z.looseObject({ role: z.literal("system"), content: text("required") }),
      z.looseObject({ role: z.literal("developer"), content: text("required") }),
      z.looseObject({ role: z.literal("user"), content: text("required") }),
      // content may be null, "", absent or parts: clients replay tool-call turns every way (openai-compat notes §3.8).
      z.looseObject({
        role: z.literal("assistant"),
        tool_calls: z
          .array(toolCallSchema, { error: (issue) => `\`${fieldOf(issue)}\` must be an array.` })
          .nullish(),
        content: text("empty"),
      }),
      z.looseObject({
        role: z.literal("tool"),
        tool_call_id: z
          .string({ error: (issue) => `\`${fieldOf(issue)}\` must name the call this result answers.` })
          .min(1),
        content: text("required"),
      }),
    ]),
  );

/** The body, field by field in the order they are checked; fields this server has no use for pass through. */
const chatRequestSchema = z.looseObject({
  model: modelField,
  n: positiveInteger.refine((n) => n === undefined || n === null || n === 1, {
    error: "Only n = 1 is supported.",
  }),
  ...samplingFields,
  response_format: responseFormatField,
  messages: z
    .array(messageSchema, { error: "`messages` must be a non-empty array of chat messages." })
    .min(1),
  tools: z
    .array(
      z.looseObject(
        { type: z.literal("function"), function: z.looseObject(functionToolFields) },
        {
          error: (issue) =>
            `\`${fieldOf(issue)}\` must be {"type": "function", "function": {"name", "description"?, "parameters"?}}; other tool types are not supported.`,
        },
      ),
      { error: "`tools` must be an array of function tools." },
    )
    .nullish(),
  tool_choice: z.unknown().optional(),
  stream: flag,
  stream_options: z
    .looseObject({ include_usage: flag }, { error: "`stream_options` must be an object." })
    .nullish(),
  max_completion_tokens: positiveInteger,
  max_tokens: positiveInteger,
  parallel_tool_calls: flag,
});

type ParsedMessage = z.infer<typeof messageSchema>;

/** Calls as the agent's messages carry them, their arguments decoded (a JSON string, as OpenAI sends them). */
function toolCallsOf(calls: ReadonlyArray<z.infer<typeof toolCallSchema>>, at: string): AgentToolCall[] {
  return calls.map((call, i) => {
    const param = `${at}[${i}].function.arguments`;
    const decoded = decodeCallArguments(call.function.arguments);
    if (!decoded.ok) throw badRequest(`\`${param}\`: ${decoded.error}.`, param);
    return { id: call.id, name: call.function.name, arguments: decoded.value };
  });
}

/** The conversation; a tool result must answer a call of an earlier assistant message. */
function messagesOf(parsed: readonly ParsedMessage[]): AgentMessage[] {
  const callNames = new Map<string, string>();
  return parsed.map((m, i): AgentMessage => {
    const at = `messages[${i}]`;
    switch (m.role) {
      case "system":
      case "developer":
        return { role: "system", content: m.content };
      case "user":
        return { role: "user", content: m.content };
      case "assistant": {
        const toolCalls = toolCallsOf(m.tool_calls ?? [], `${at}.tool_calls`);
        for (const call of toolCalls) callNames.set(call.id, call.name);
        return { role: "assistant", content: m.content, ...(toolCalls.length ? { toolCalls } : {}) };
      }
      default: {
        // role "tool": a result must answer a call of an earlier assistant message.
        const name = callNames.get(m.tool_call_id);
        if (name === undefined)
          throw badRequest(
            `\`${at}.tool_call_id\` "${m.tool_call_id}" answers no tool call of an earlier assistant message. ` +
              "Send the assistant message with its tool_calls before the tool results.",
            `${at}.tool_call_id`,
          );
        return {
          role: "tool",
          callId: m.tool_call_id,
          name,
          result: { content: [{ type: "text", text: m.content }] },
        };
      }
    }
  });
}

/** Chat Completions' `tool_choice`: its parts nested under `function` and `allowed_tools`. */
const CHAT_TOOL_CHOICE: ToolChoiceShape = {
  functionPart: (raw) =>
    isObject(raw.function) ? { part: raw.function, path: "tool_choice.function" } : undefined,
  allowedPart: (raw) =>
    isObject(raw.allowed_tools) ? { part: raw.allowed_tools, path: "tool_choice.allowed_tools" } : undefined,
  listedTool: (tool) => ({ part: isObject(tool) ? tool.function : undefined, path: ".function" }),
  forms:
    '"none", "auto", "required", {"type": "function", "function": {"name": "…"}} or an allowed_tools choice',
};

/** tool_choice → ours; `allowed_tools` narrows `tools` to the listed ones. Default: auto with tools, none without. */
const toolChoiceOf = (raw: unknown, tools: Tool[]) => readToolChoice(raw, tools, CHAT_TOOL_CHOICE);

/**
 * Validate a chat completions body and convert it. Everything is checked here, before any response header is sent;
 * sampling settings and `response_format` are validated with OpenAI's ranges and go to the model; `logprobs` and
 * `n` > 1 are refused; fields this server has no use for (user, metadata, a replayed `refusal`…) are ignored, as
 * OpenAI's clients send them freely.
 */
export function parseChatRequest(body: unknown): ChatRequest {
  const request = parseV1Body(chatRequestSchema, body);
  const messages = messagesOf(request.messages);
  const { choice, tools } = toolChoiceOf(
    request.tool_choice,
    toTools(
      (request.tools ?? []).map((tool) => tool.function),
      (i) => `tools[${i}].function`,
    ),
  );
  const stream = request.stream ?? false;
  return {
    model: request.model,
    messages,
    tools,
    toolChoice: choice,
    parallelToolCalls: request.parallel_tool_calls ?? true,
    stream,
    includeUsage: stream && (request.stream_options?.include_usage ?? false),
    maxTokens: request.max_completion_tokens ?? request.max_tokens ?? undefined,
    sampling: samplingOf(request),
    responseFormat: responseFormatOf(request.response_format),
  };
}
