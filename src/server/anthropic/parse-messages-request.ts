import type { Tool } from "@modelcontextprotocol/server";
import { z } from "zod";
import type { AgentMessage, AgentToolCall } from "../../core/agent-message.js";
import type { ToolChoice } from "../../core/language-model.js";
import { badRequest } from "../http-error.js";
import type { TurnRequest } from "../openai/model-turn.js";
import {
  anthropicToolFields,
  fieldOf,
  flag,
  isObject,
  modelField,
  namedTool,
  parseV1Body,
  shown,
  textContent,
  toTools,
} from "../openai/parse-request-fields.js";
import { numberIn, samplingOf } from "../openai/parse-sampling-settings.js";

/** A `/v1/messages` request, validated and converted. */
export type MessagesRequest = TurnRequest;

/** Text blocks → their text; `cache_control` and citations are accepted and ignored. Other blocks are refused. */
const blocksText = textContent({
  parts: "text blocks",
  wanted: '{"type": "text", "text": "…"}',
  partText: (block) =>
    isObject(block) && block.type === "text" && typeof block.text === "string" ? block.text : undefined,
  absent: "invalid",
});

/** A content block: an object whose `type` is one `allowed` for the role (else `refused` says which are). */
function blockSchema<const T extends readonly [string, ...string[]]>(
  allowed: T,
  refused: string,
  variants: Parameters<typeof z.discriminatedUnion>[1],
) {
  const type = z.enum(allowed, {
    error: (issue) => `\`${fieldOf(issue)}\` ${shown(issue.input)} is not supported${refused}.`,
  });
  const typed = z.discriminatedUnion("type", variants) as unknown as z.ZodType<
    Record<string, unknown> & { type: T[number] },
    { [key: string]: unknown; type: T[number] }
  >;
  return z
    .looseObject({ type }, { error: (issue) => `\`${fieldOf(issue)}\` must be a content block.` })
    .pipe(typed);
}

const textBlock = z.looseObject({
  type: z.literal("text"),
  text: z.string({ error: (issue) => `\`${fieldOf(issue)}\` must be the block's text.` }),
});

/** An assistant turn's blocks: text, its `tool_use` calls, and `thinking` a client replays (not sent back). */
const assistantBlock = blockSchema(
  ["text", "tool_use", "thinking", "redacted_thinking"],
  " in an assistant message: use text and tool_use blocks",
  [
    textBlock,
    z.looseObject({
      type: z.literal("tool_use"),
      id: z.string({ error: (issue) => `\`${fieldOf(issue)}\` must be the call's id.` }).min(1),
      name: z.string({ error: (issue) => `\`${fieldOf(issue)}\` must be the called tool's name.` }).min(1),
      input: z.looseObject({}, { error: (issue) => `\`${fieldOf(issue)}\` must be an object.` }).optional(),
    }),
    z.looseObject({ type: z.literal("thinking") }),
    z.looseObject({ type: z.literal("redacted_thinking") }),
  ],
);

/** A user turn's blocks: text, and `tool_result`s answering the assistant turn right before. */
const userBlock = blockSchema(
  ["text", "tool_result"],
  ": user messages may hold text and tool_result blocks (this server's models read text only)",
  [
    textBlock,
    z.looseObject({
      type: z.literal("tool_result"),
      tool_use_id: z.unknown().optional(),
      content: blocksText.optional(),
      is_error: z.unknown().optional(),
    }),
  ],
);

/** A message: its role, its content (a string is one text block), then the blocks its role may hold. */
const messageSchema = z
  .looseObject(
    {
      content: z.preprocess(
        (content) => (typeof content === "string" ? [{ type: "text", text: content }] : content),
        z.array(z.unknown(), {
          error: (issue) => `\`${fieldOf(issue)}\` must be a string or an array of content blocks.`,
        }),
      ),
      role: z.enum(["user", "assistant"], {
        error: (issue) => `\`${fieldOf(issue)}\` must be "user" or "assistant", got ${shown(issue.input)}.`,
      }),
    },
    { error: (issue) => `\`${fieldOf(issue)}\` must be an object with a role.` },
  )
  .pipe(
    z.discriminatedUnion("role", [
      z.looseObject({ role: z.literal("assistant"), content: z.array(assistantBlock) }),
      z.looseObject({ role: z.literal("user"), content: z.array(userBlock) }),
    ]),
  );

/** `tool_choice`: `{type: "auto" | "any" | "tool" | "none", name?, disable_parallel_tool_use?}`. */
const toolChoiceSchema = z
  .looseObject(
    {
      disable_parallel_tool_use: flag,
      type: z.enum(["auto", "any", "tool", "none"], {
        error: '`tool_choice.type` must be "auto", "any", "tool" or "none".',
      }),
      name: z.unknown().optional(),
    },
    { error: '`tool_choice` must be an object such as {"type": "auto"}.' },
  )
  .nullish();

/** The body, field by field in the order they are checked; `thinking`, `metadata`, `service_tier`… pass through. */
const messagesRequestSchema = z.looseObject({
  model: modelField,
  // Required, as Anthropic requires it.
  max_tokens: z
    .number({
      error: (issue) =>
        issue.input === undefined || issue.input === null
          ? "`max_tokens` is required."
          : `\`max_tokens\` must be a positive integer, got ${shown(issue.input)}.`,
    })
    .int()
    .min(1),
  // Anthropic's range; `top_k` is accepted and left to the model.
  temperature: numberIn(0, 1),
  top_p: numberIn(0, 1),
  stop_sequences: z
    .array(z.string({ error: "`stop_sequences` must be an array of strings." }), {
      error: "`stop_sequences` must be an array of strings.",
    })
    .nullish(),
  system: blocksText.nullish(),
  messages: z
    .array(messageSchema, { error: "`messages` must be a non-empty array of user and assistant messages." })
    .min(1),
  tools: z
    .array(
      z.looseObject(
        {
          type: z
            .literal("custom", {
              error: (issue) =>
                `\`${fieldOf(issue)}\` ${shown(issue.input)} (a server tool) is not supported: give client tools as {"name", "description"?, "input_schema"}.`,
            })
            .nullish(),
          ...anthropicToolFields,
        },
        { error: (issue) => `\`${fieldOf(issue)}\` must be a tool object.` },
      ),
      { error: "`tools` must be an array of tools." },
    )
    .nullish(),
  tool_choice: toolChoiceSchema,
  stream: flag,
});

type ParsedMessage = z.infer<typeof messageSchema>;
type Block = Record<string, unknown> & { type: string };

/**
 * `messages` → the conversation. A user turn's `tool_result` blocks become tool results (they must answer a `tool_use`
 * of the assistant turn right before, as Anthropic requires), its text blocks a user message after them; an assistant
 * turn's `tool_use` blocks become its calls; `thinking` blocks are the model's own notes and are not sent back to it.
 */
function messagesOf(parsed: readonly ParsedMessage[]): AgentMessage[] {
  const out: AgentMessage[] = [];
  let lastCalls = new Map<string, string>();
  parsed.forEach((m, i) => {
    const blocks = m.content as Block[];
    let text = "";
    if (m.role === "assistant") {
      const calls: AgentToolCall[] = [];
      for (const block of blocks) {
        if (block.type === "text") text += block.text as string;
        else if (block.type === "tool_use")
          calls.push({
            id: block.id as string,
            name: block.name as string,
            arguments: (block.input as Record<string, unknown> | undefined) ?? {},
          });
      }
      lastCalls = new Map(calls.map((c) => [c.id, c.name]));
      out.push({ role: "assistant", content: text, ...(calls.length ? { toolCalls: calls } : {}) });
      return;
    }
    blocks.forEach((block, k) => {
      if (block.type === "text") {
        text += block.text as string;
        return;
      }
      const at = `messages[${i}].content[${k}].tool_use_id`;
      const id = block.tool_use_id;
      const name = typeof id === "string" ? lastCalls.get(id) : undefined;
      if (typeof id !== "string" || name === undefined)
        throw badRequest(
          `\`${at}\` ${shown(id)}: each tool_result block must have a corresponding tool_use block in the previous message.`,
          at,
        );
      out.push({
        role: "tool",
        callId: id,
        name,
        result: {
          content: [{ type: "text", text: (block.content as string | undefined) ?? "" }],
          ...(block.is_error === true ? { isError: true } : {}),
        },
      });
    });
    lastCalls = new Map();
    if (text || !blocks.some((b) => b.type === "tool_result")) out.push({ role: "user", content: text });
  });
  return out;
}

/**
 * `tool_choice`: `{type: "auto"}`, `{type: "any"}` (= required), `{type: "tool", name}`, `{type: "none"}`; with
 * `disable_parallel_tool_use: true`, at most one call. Default: auto with tools, none without.
 */
function toolChoiceOf(
  raw: z.infer<typeof toolChoiceSchema>,
  tools: Tool[],
): { choice: ToolChoice; parallel: boolean } {
  if (!raw) return { choice: tools.length ? "auto" : "none", parallel: true };
  const parallel = raw.disable_parallel_tool_use !== true;
  switch (raw.type) {
    case "auto":
      return { choice: tools.length ? "auto" : "none", parallel };
    case "none":
      return { choice: "none", parallel };
    case "any":
      if (!tools.length)
        throw badRequest('tool_choice {"type": "any"} needs at least one tool in `tools`.', "tool_choice");
      return { choice: "required", parallel };
    case "tool":
      return { choice: { name: namedTool(raw.name, tools, "tool_choice.name") }, parallel };
  }
}

/**
 * Validate a Messages API body and convert it, before any header is sent. `max_tokens` is required (as Anthropic
 * requires it); `thinking`, `metadata`, `service_tier` and `cache_control` are accepted and ignored.
 */
export function parseMessagesRequest(body: unknown): MessagesRequest {
  if (body === undefined) throw badRequest("The request body is not valid JSON.", null, "invalid_json");
  const request = parseV1Body(messagesRequestSchema, body);
  const system = request.system ? [{ role: "system" as const, content: request.system }] : [];
  const messages = [...system, ...messagesOf(request.messages)];
  const tools = toTools(request.tools ?? [], (i) => `tools[${i}]`);
  const { choice, parallel } = toolChoiceOf(request.tool_choice, tools);
  return {
    model: request.model,
    messages,
    tools,
    toolChoice: choice,
    parallelToolCalls: parallel,
    stream: request.stream ?? false,
    maxTokens: request.max_tokens,
    sampling: samplingOf({ ...request, stop: request.stop_sequences }),
    responseFormat: undefined,
  };
}
