import { randomBytes } from "node:crypto";
import type {
  ResponseFunctionToolCall,
  ResponseOutputMessage,
  ResponseReasoningItem,
} from "openai/resources/responses/responses";
import type { WireEncoder } from "../stream-turn.js";
import { turnFailure } from "../turn-failure.js";
import type { TurnCall, TurnFinishReason, TurnOutput, TurnUsage } from "../turn-reader.js";
import type { ResponsesRequest } from "./parse-responses-request.js";

/** `prefix_` + 24 alphanumerics, as OpenAI's ids (`resp_`, `msg_`, `fc_`, `rs_`). */
function itemId(prefix: string): string {
  return `${prefix}_${randomBytes(18).toString("base64url").replace(/[-_]/g, "x")}`;
}

type Json = Record<string, unknown>;

// The output items are the openai SDK's own types (the one home of OpenAI's wire shapes).
type FunctionCallItem = ResponseFunctionToolCall;
type OutputItem = ResponseOutputMessage | ResponseReasoningItem | FunctionCallItem;

function usageOf(usage: TurnUsage) {
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens },
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}

/** `length` and `content_filter` end a response `incomplete`, with the reason OpenAI gives. */
function endState(reason: TurnFinishReason) {
  if (reason === "length")
    return { status: "incomplete" as const, incomplete_details: { reason: "max_output_tokens" } };
  if (reason === "content_filter")
    return { status: "incomplete" as const, incomplete_details: { reason: "content_filter" } };
  return { status: "completed" as const, incomplete_details: null };
}

function functionCallItem(call: TurnCall, status: FunctionCallItem["status"]): FunctionCallItem {
  // The call's id is the call_id the client answers with; the item has its own `fc_` id.
  return {
    type: "function_call",
    id: `fc_${call.id.replace(/^call_/, "")}`,
    call_id: call.id,
    name: call.name,
    arguments: status === "completed" ? call.arguments : "",
    status,
  };
}

/** The `response` object as OpenAI returns it, the request's settings repeated. */
class ResponseObject {
  readonly id = itemId("resp");
  readonly createdAt = Math.floor(Date.now() / 1000);
  constructor(readonly request: ResponsesRequest) {}

  build(state: {
    status: "in_progress" | "completed" | "incomplete" | "failed";
    output: OutputItem[];
    usage?: TurnUsage | undefined;
    incompleteDetails?: { reason: string } | null;
    error?: { code: string; message: string } | null;
  }): Json {
    return {
      id: this.id,
      object: "response",
      created_at: this.createdAt,
      status: state.status,
      background: false,
      error: state.error ?? null,
      incomplete_details: state.incompleteDetails ?? null,
      ...this.request.echo,
      model: this.request.model,
      output: state.output,
      previous_response_id: null,
      reasoning: { effort: null, summary: null },
      service_tier: "default",
      store: false,
      truncation: "disabled",
      usage: state.usage ? usageOf(state.usage) : null,
    };
  }
}

/** The non-streaming response: reasoning, text and calls as output items, in the order the model produced them. */
export function buildResponse(request: ResponsesRequest, outputs: readonly TurnOutput[]): Json {
  const output: OutputItem[] = [];
  let finish: Extract<TurnOutput, { kind: "finish" }> | undefined;
  for (const piece of outputs) {
    const last = output.at(-1);
    if (piece.kind === "text") {
      if (last?.type === "message") (last.content[0] as { text: string }).text += piece.text;
      else
        output.push({
          type: "message",
          id: itemId("msg"),
          status: "completed",
          role: "assistant",
          content: [{ type: "output_text", text: piece.text, annotations: [], logprobs: [] }],
        });
    } else if (piece.kind === "reasoning") {
      if (last?.type === "reasoning") (last.content?.[0] as { text: string }).text += piece.text;
      else
        output.push({
          type: "reasoning",
          id: itemId("rs"),
          summary: [],
          content: [{ type: "reasoning_text", text: piece.text }],
        });
    } else if (piece.kind === "call") output.push(functionCallItem(piece.call, "completed"));
    else finish = piece;
  }
  const end = endState(finish?.reason ?? "stop");
  return new ResponseObject(request).build({
    status: end.status,
    incompleteDetails: end.incomplete_details,
    output,
    usage: finish?.usage,
  });
}

/**
 * Writes a turn as the Responses API streams it: `response.created` and `response.in_progress`; per output item
 * `response.output_item.added`, its deltas (`response.output_text.delta` inside a `content_part`,
 * `response.reasoning_text.delta`, `response.function_call_arguments.delta` with a call's whole arguments, then
 * `.done`), `response.output_item.done`; then `response.completed` (or `response.incomplete`) with the whole response
 * and its usage. Every event carries `sequence_number`; there is no `[DONE]`.
 */
export class ResponsesEventWriter implements WireEncoder {
  readonly #response: ResponseObject;
  readonly #output: OutputItem[] = [];
  /** The message or reasoning item still receiving text. */
  #open: ResponseOutputMessage | ResponseReasoningItem | undefined;
  #sequence = 0;
  #started = false;

  constructor(request: ResponsesRequest) {
    this.#response = new ResponseObject(request);
  }

  #event(type: string, fields: Json): string {
    return `event: ${type}\ndata: ${JSON.stringify({ type, ...fields, sequence_number: this.#sequence++ })}\n\n`;
  }

  #start(): string {
    if (this.#started) return "";
    this.#started = true;
    const response = this.#response.build({ status: "in_progress", output: [] });
    return this.#event("response.created", { response }) + this.#event("response.in_progress", { response });
  }

  /** Finish the item still receiving text, if any. */
  #closeOpen(): string {
    const item = this.#open;
    if (!item) return "";
    this.#open = undefined;
    const outputIndex = this.#output.indexOf(item);
    const at = { item_id: item.id, output_index: outputIndex, content_index: 0 };
    let out = "";
    // The item's one content part, which #textInto put there.
    const part = (item.content as Array<{ text: string }>)[0] as { text: string };
    if (item.type === "message") {
      out += this.#event("response.output_text.done", { ...at, text: part.text, logprobs: [] });
      out += this.#event("response.content_part.done", { ...at, part });
      item.status = "completed";
    } else {
      out += this.#event("response.reasoning_text.done", { ...at, text: part.text });
      out += this.#event("response.content_part.done", { ...at, part });
    }
    return out + this.#event("response.output_item.done", { output_index: outputIndex, item });
  }

  #textInto(kind: "message" | "reasoning", text: string): string {
    let out = "";
    let item = this.#open;
    if (item?.type !== kind) {
      out += this.#closeOpen();
      item =
        kind === "message"
          ? { type: "message", id: itemId("msg"), status: "in_progress", role: "assistant", content: [] }
          : { type: "reasoning", id: itemId("rs"), summary: [], content: [] };
      this.#output.push(item);
      this.#open = item;
      const outputIndex = this.#output.length - 1;
      out += this.#event("response.output_item.added", { output_index: outputIndex, item });
      const part =
        kind === "message"
          ? { type: "output_text" as const, text: "", annotations: [] as [], logprobs: [] as [] }
          : { type: "reasoning_text" as const, text: "" };
      out += this.#event("response.content_part.added", {
        item_id: item.id,
        output_index: outputIndex,
        content_index: 0,
        part,
      });
      (item.content as Array<typeof part>).push({ ...part });
    }
    const part = (item.content as Array<{ text: string }>)[0] as { text: string };
    part.text += text;
    const at = { item_id: item.id, output_index: this.#output.indexOf(item), content_index: 0 };
    return (
      out +
      (kind === "message"
        ? this.#event("response.output_text.delta", { ...at, delta: text, logprobs: [] })
        : this.#event("response.reasoning_text.delta", { ...at, delta: text }))
    );
  }

  write(output: TurnOutput): string {
    let out = this.#start();
    switch (output.kind) {
      case "text":
        return out + this.#textInto("message", output.text);
      case "reasoning":
        return out + this.#textInto("reasoning", output.text);
      case "call": {
        out += this.#closeOpen();
        const outputIndex = this.#output.length;
        const added = functionCallItem(output.call, "in_progress");
        const done = functionCallItem(output.call, "completed");
        this.#output.push(done);
        const at = { item_id: done.id, output_index: outputIndex };
        return (
          out +
          this.#event("response.output_item.added", { output_index: outputIndex, item: added }) +
          this.#event("response.function_call_arguments.delta", { ...at, delta: done.arguments }) +
          this.#event("response.function_call_arguments.done", {
            ...at,
            name: done.name,
            arguments: done.arguments,
          }) +
          this.#event("response.output_item.done", { output_index: outputIndex, item: done })
        );
      }
      case "finish": {
        out += this.#closeOpen();
        const end = endState(output.reason);
        const response = this.#response.build({
          status: end.status,
          incompleteDetails: end.incomplete_details,
          output: this.#output,
          usage: output.usage,
        });
        return (
          out +
          this.#event(end.status === "completed" ? "response.completed" : "response.incomplete", { response })
        );
      }
    }
  }

  end(): string {
    return "";
  }

  /** An `error` event, then `response.failed` with the error: the stream's last events. */
  fail(error: unknown): string {
    const failure = turnFailure(error);
    const code = failure.code;
    const response = this.#response.build({
      status: "failed",
      output: this.#output,
      error: { code, message: failure.message },
    });
    return (
      this.#start() +
      this.#event("error", { code, message: failure.message, param: failure.param }) +
      this.#event("response.failed", { response })
    );
  }
}
