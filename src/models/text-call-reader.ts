import type { Tool } from "@modelcontextprotocol/server";
import type { ModelEvent, ModelFinishReason, ModelRequest } from "../core/language-model.js";
import type { ToolCallProtocol } from "../protocols/protocol.js";
import type { ParserEvent, ToolCallParser } from "../protocols/types.js";
import { generateCallId } from "./generate-call-id.js";

/**
 * Whether a request lets the model call a tool: some tool is offered and `toolChoice` is not `none`. When it does
 * not, the catalogue is not in the prompt, no call is parsed (the text is the answer, markup and all) and the
 * request's stop strings and answer format apply to the model's raw text.
 */
export function offersCalls(request: Pick<ModelRequest, "tools" | "toolChoice">): boolean {
  return request.tools.length > 0 && request.toolChoice !== "none";
}

/**
 * Reads calls out of a text-only model's streamed text with a protocol's incremental parser and turns them into model
 * events, so a backend that parses its own text looks to the loop like a native one. Unreadable or cut-off markup
 * becomes a `call-error` (of the call it started, when it started one): the loop sends the model a repair observation
 * instead of the markup silently vanishing. Every text path (completions, llama text mode, `withTextProtocol`, the
 * replay model's `protocol`) reads through one of these.
 */
export class TextCallReader {
  readonly #parser: ToolCallParser;
  readonly #ids = new Map<number, { id: string; name: string }>();
  /** Text passed on as content. */
  shown = "";
  /** Calls ended (readable or not). */
  calls = 0;
  /** Whether the end of the text cut a call off (the parser reported it truncated). */
  #cut = false;

  /** With no call possible (`offersCalls`), what looks like call markup is text the model wrote: it is content. */
  readonly #callsOff: boolean;

  /**
   * `prompt`: what the model continues (its end tells the parser whether the output starts inside reasoning).
   * `toolChoice` `none` (or no tools) turns call parsing off.
   */
  constructor(input: {
    protocol: Pick<ToolCallProtocol, "createParser">;
    tools: readonly Tool[];
    toolChoice: ModelRequest["toolChoice"];
    prompt?: string;
  }) {
    this.#callsOff = !offersCalls(input);
    this.#parser = input.protocol.createParser({
      tools: input.tools,
      ...(input.prompt === undefined ? {} : { prefix: input.prompt.slice(-64) }),
      createId: generateCallId,
      ...(this.#callsOff ? { calls: false } : {}),
    });
  }

  /** The events a piece of streamed text completes. */
  push(text: string): ModelEvent[] {
    return this.#map(this.#parser.push(text));
  }

  /**
   * The turn's finish reason, given how its generation ended: `tool-calls` once it ended calls — unless the token
   * limit cut one off, when it stays `length` (that call is incomplete, and a larger limit is the fix). Complete calls
   * followed by text the limit cut are the turn's calls. Every text path decides it here.
   */
  finishReason(ended: ModelFinishReason): ModelFinishReason {
    if (this.calls === 0) return ended;
    return ended === "length" && this.#cut ? "length" : "tool-calls";
  }

  /** The end of the text: whatever was still open is finished, or reported cut off. */
  end(): ModelEvent[] {
    return this.#map(this.#parser.end());
  }

  #map(events: readonly ParserEvent[]): ModelEvent[] {
    const out: ModelEvent[] = [];
    for (const e of events) {
      // A parser of a registered protocol may not know `calls: false`: its call markup still comes back as text.
      if (this.#callsOff && e.type !== "content" && e.type !== "reasoning") {
        if (e.type === "call-end" || e.type === "parse-error" || e.type === "truncated") {
          this.shown += e.raw;
          out.push({ type: "text-delta", text: e.raw });
        }
        continue;
      }
      switch (e.type) {
        case "content":
          this.shown += e.text;
          out.push({ type: "text-delta", text: e.text });
          break;
        case "reasoning":
          out.push({ type: "reasoning-delta", text: e.text });
          break;
        case "call-start":
          this.#ids.set(e.index, { id: e.id, name: e.name });
          out.push({ type: "call-start", id: e.id, name: e.name });
          break;
        case "call-args-delta": {
          const call = this.#ids.get(e.index);
          if (call) out.push({ type: "call-args-delta", id: call.id, text: e.text });
          break;
        }
        case "call-end": {
          this.calls += 1;
          const known = this.#ids.get(e.index);
          const id = known?.id ?? e.call.id;
          if (!known) out.push({ type: "call-start", id, name: e.call.name });
          out.push({
            type: "call-end",
            id,
            name: e.call.name,
            arguments: e.call.arguments,
            ...(e.repaired ? { repaired: true } : {}),
          });
          break;
        }
        case "parse-error":
        case "truncated": {
          this.calls += 1;
          if (e.type === "truncated") this.#cut = true;
          const known = e.index === undefined ? undefined : this.#ids.get(e.index);
          out.push(
            known
              ? { type: "call-error", id: known.id, name: known.name, message: e.message, raw: e.raw }
              : { type: "call-error", message: e.message, raw: e.raw },
          );
          break;
        }
      }
    }
    return out;
  }
}
