import type {
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3GenerateResult,
  LanguageModelV3Middleware,
  LanguageModelV3Prompt,
  LanguageModelV3StreamResult,
  LanguageModelV3Usage,
  SharedV3Warning,
} from "@ai-sdk/provider";
import type { Tool } from "@modelcontextprotocol/server";
import type { LanguageModelMiddleware } from "ai";
import type { ToolChoice } from "../core/language-model.js";
import { chooseProtocol } from "../models/choose-protocol.js";
import { forcedChoiceNudge } from "../models/enforce-tool-choice.js";
import type { ToolCallProtocol } from "../protocols/protocol.js";
import { getProtocol } from "../protocols/protocol-registry.js";
import { fromAiSdkTools } from "./from-ai-sdk-tools.js";
import { ProtocolOutputReader } from "./protocol-output-reader.js";
import { readProtocolStream } from "./read-protocol-stream.js";
import { toFinishReason } from "./stream-part-writer.js";
import { toProtocolPrompt } from "./to-protocol-prompt.js";

export interface ToolbridgeToolMiddlewareOptions {
  /**
   * The tool-call format: an id (`"hermes"`, `"pythonic"`, … — every format `toolbridge/protocols` lists), a protocol
   * object, or `"auto"`: the one the model's id names (`detectProtocol`), Hermes when it names none.
   */
  protocol: string | ToolCallProtocol;
  /** Asks again, this many times, when `toolChoice` `required` or a named tool was answered without that call. Default 1. */
  maxForcedRetries?: number;
  /** `false`: one call per turn — the catalogue says so, and the turn ends once the first call is complete. */
  parallelToolCalls?: boolean;
}

/** What `transformParams` decided for a call, for the `wrap*` handler that reads its output. */
interface TurnPlan {
  protocol: ToolCallProtocol;
  tools: Tool[];
  toolChoice: ToolChoice;
  callable: boolean;
  stops: string[];
  warnings: SharedV3Warning[];
}

const forced = (choice: ToolChoice): boolean => choice === "required" || typeof choice === "object";

function hasToolHistory(prompt: LanguageModelV3Prompt): boolean {
  return prompt.some(
    (m) => m.role === "tool" || (m.role === "assistant" && m.content.some((p) => p.type === "tool-call")),
  );
}

function addUsage(a: LanguageModelV3Usage, b: LanguageModelV3Usage): LanguageModelV3Usage {
  const sum = (x: number | undefined, y: number | undefined) =>
    x === undefined && y === undefined ? undefined : (x ?? 0) + (y ?? 0);
  return {
    inputTokens: {
      total: sum(a.inputTokens.total, b.inputTokens.total),
      noCache: sum(a.inputTokens.noCache, b.inputTokens.noCache),
      cacheRead: sum(a.inputTokens.cacheRead, b.inputTokens.cacheRead),
      cacheWrite: sum(a.inputTokens.cacheWrite, b.inputTokens.cacheWrite),
    },
    outputTokens: {
      total: sum(a.outputTokens.total, b.outputTokens.total),
      text: sum(a.outputTokens.text, b.outputTokens.text),
      reasoning: sum(a.outputTokens.reasoning, b.outputTokens.reasoning),
    },
  };
}

/**
 * Whether a turn's calls satisfy a forced choice: the rule of `enforceToolChoice`, except that a call that could not be
 * read counts too — the SDK's repair (or its report of the invalid call to the model) takes it from there.
 */
function qualifies(choice: ToolChoice, calls: ReadonlyArray<{ toolName: string }>): boolean {
  if (typeof choice === "object") return calls.some((c) => c.toolName === choice.name || c.toolName === "");
  return calls.length > 0;
}

/** The turn without a call, and the nudge to call now, appended for the next attempt (`enforceToolChoice`'s re-ask). */
function reask(
  params: LanguageModelV3CallOptions,
  choice: ToolChoice,
  text: string,
): LanguageModelV3CallOptions {
  return {
    ...params,
    prompt: [
      ...params.prompt,
      { role: "assistant", content: [{ type: "text", text }] },
      { role: "user", content: [{ type: "text", text: forcedChoiceNudge(choice) }] },
    ],
  };
}

/** Generated content with its text read through the protocol: calls out of the text, the rest kept in order. */
function readContent(
  content: readonly LanguageModelV3Content[],
  plan: TurnPlan,
  singleCall: boolean,
): LanguageModelV3Content[] {
  const out: LanguageModelV3Content[] = [];
  const reader = new ProtocolOutputReader({ ...plan, singleCall }, (part) => {
    switch (part.type) {
      case "text-delta":
      case "reasoning-delta": {
        const kind = part.type === "text-delta" ? "text" : "reasoning";
        const last = out.at(-1);
        if (last?.type === kind) last.text += part.delta;
        else out.push({ type: kind, text: part.delta });
        break;
      }
      case "tool-call":
        out.push(part);
        break;
      default:
        break;
    }
  });
  for (const part of content) {
    if (part.type === "text") reader.text(part.text);
    else out.push(part);
  }
  reader.end();
  return out;
}

async function collect<T>(stream: ReadableStream<T>): Promise<T[]> {
  const parts: T[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return parts;
    parts.push(value);
  }
}

function streamOf<T>(parts: readonly T[]): ReadableStream<T> {
  let next = 0;
  return new ReadableStream<T>({
    pull(controller) {
      if (next < parts.length) controller.enqueue(parts[next++] as T);
      else controller.close();
    },
  });
}

/**
 * An AI SDK language-model middleware that gives any model without native tool calling — a local OpenAI-compatible
 * server, `/v1/completions`, anything `wrapLanguageModel` takes — tool calls in one of toolbridge's text formats.
 * The tools' catalogue joins the system prompt, past calls and results are written into the transcript in the format,
 * and calls are parsed out of the model's text as it streams: `tool-input-start`/`-delta`/`-end` and `tool-call`
 * parts, no markup left in the text, reasoning apart. `toolChoice` `required` and a named tool are asked for in the
 * prompt and asked again when a turn comes back without the call (so a forced stream is buffered); `none` leaves the
 * catalogue out and drops any call. A call that cannot be read reaches the SDK as an unparsable `tool-call`, so
 * `experimental_repairToolCall` (or the SDK's error result to the model) takes over. Works with `ai` 6 and 7.
 */
export function toolbridgeToolMiddleware(options: ToolbridgeToolMiddlewareOptions): LanguageModelMiddleware {
  // A named format that does not exist is an error now, not at the first call.
  const fixed =
    options.protocol === "auto"
      ? undefined
      : typeof options.protocol === "string"
        ? getProtocol(options.protocol)
        : options.protocol;
  const maxRetries = options.maxForcedRetries ?? 1;
  const parallel = options.parallelToolCalls;
  // The wrap handlers get the very object transformParams returned; what they need to read its output travels here.
  const plans = new WeakMap<LanguageModelV3CallOptions, TurnPlan>();

  const middleware: LanguageModelV3Middleware = {
    specificationVersion: "v3",

    async transformParams({ params, model }) {
      const offered = fromAiSdkTools(params);
      if (offered.tools.length === 0 && offered.warnings.length === 0 && !hasToolHistory(params.prompt))
        return params;
      const protocol = fixed ?? chooseProtocol({ modelName: model.modelId });
      const callable = offered.tools.length > 0 && offered.toolChoice !== "none";
      const { tools: _tools, toolChoice: _choice, ...rest } = params;
      const transformed: LanguageModelV3CallOptions = {
        ...rest,
        prompt: toProtocolPrompt({
          prompt: params.prompt,
          tools: offered.tools,
          toolChoice: offered.toolChoice,
          protocol,
          ...(parallel === false ? { parallel: false } : {}),
        }),
        // With a call possible, the caller's stop strings apply to the visible text after parsing (they would cut a
        // call's markup), the protocol's own stop the model before a made-up result, and a JSON answer format is not
        // asked for: a call is not JSON.
        ...(callable
          ? {
              stopSequences: protocol.stopSequences.length ? [...protocol.stopSequences] : undefined,
              responseFormat: undefined,
            }
          : {}),
      };
      plans.set(transformed, {
        protocol,
        tools: offered.tools,
        toolChoice: offered.toolChoice,
        callable,
        stops: callable ? [...(params.stopSequences ?? [])] : [],
        warnings: offered.warnings,
      });
      return transformed;
    },

    async wrapGenerate({ doGenerate, params, model }) {
      const plan = plans.get(params);
      if (!plan) return doGenerate();
      let attempt = params;
      let usage: LanguageModelV3Usage | undefined;
      for (let round = 0; ; round++) {
        const result: LanguageModelV3GenerateResult =
          round === 0 ? await doGenerate() : await model.doGenerate(attempt);
        usage = usage ? addUsage(usage, result.usage) : result.usage;
        const content = readContent(result.content, plan, parallel === false);
        const calls = content.filter(
          (c): c is Extract<typeof c, { type: "tool-call" }> => c.type === "tool-call",
        );
        if (
          !plan.callable ||
          !forced(plan.toolChoice) ||
          qualifies(plan.toolChoice, calls) ||
          round >= maxRetries
        ) {
          return {
            ...result,
            content,
            usage,
            finishReason: calls.length
              ? toFinishReason("tool-calls", result.finishReason.raw)
              : result.finishReason,
            warnings: [...result.warnings, ...plan.warnings],
          };
        }
        const text = content.map((c) => (c.type === "text" ? c.text : "")).join("");
        attempt = reask(attempt, plan.toolChoice, text);
      }
    },

    async wrapStream({ doStream, params, model }) {
      const plan = plans.get(params);
      if (!plan) return doStream();
      const singleCall = parallel === false;
      if (!plan.callable || !forced(plan.toolChoice)) {
        const result = await doStream();
        return { ...result, stream: readProtocolStream(result.stream, { ...plan, singleCall }) };
      }
      // A forced turn is read whole before it is passed on: one without the call is asked again instead.
      let attempt = params;
      let usage: LanguageModelV3Usage | undefined;
      for (let round = 0; ; round++) {
        const result: LanguageModelV3StreamResult =
          round === 0 ? await doStream() : await model.doStream(attempt);
        const parts = await collect(readProtocolStream(result.stream, { ...plan, singleCall }));
        const finish = parts.find((p) => p.type === "finish");
        if (finish?.type === "finish") usage = usage ? addUsage(usage, finish.usage) : finish.usage;
        const calls = parts.filter(
          (p): p is Extract<typeof p, { type: "tool-call" }> => p.type === "tool-call",
        );
        if (qualifies(plan.toolChoice, calls) || round >= maxRetries) {
          const final = usage;
          const counted = parts.map((p) => (p.type === "finish" && final ? { ...p, usage: final } : p));
          return { ...result, stream: streamOf(counted) };
        }
        const text = parts.map((p) => (p.type === "text-delta" ? p.delta : "")).join("");
        attempt = reask(attempt, plan.toolChoice, text);
      }
    },
  };
  return middleware as LanguageModelMiddleware;
}
