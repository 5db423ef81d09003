import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import type { Tool } from "@modelcontextprotocol/server";
import type { ModelEvent } from "../core/language-model.js";
import { SingleCallGate } from "../models/single-call-gate.js";
import { StopAtVisibleText } from "../models/stop-at-visible-text.js";
import { TextCallReader } from "../models/text-call-reader.js";
import type { ToolCallProtocol } from "../protocols/protocol.js";
import { StreamPartWriter } from "./stream-part-writer.js";

export interface ProtocolOutputOptions {
  protocol: ToolCallProtocol;
  tools: readonly Tool[];
  /**
   * False when no call may come out (toolChoice `none`, no tools): nothing is parsed as a call, and markup the model
   * writes anyway is its text, as on every other text path (`offersCalls`): nothing it wrote vanishes.
   */
  callable: boolean;
  /** The caller's stop strings: they end the visible text, never a call's markup. */
  stops: readonly string[];
  /** At most one call: the turn is over once it is complete. */
  singleCall: boolean;
}

/**
 * Reads a text-only model's output — the text of an AI SDK model's stream or result — with a protocol's incremental
 * parser, and writes what it holds as AI SDK stream parts: prose as text, `<think>` and the format's own channel as
 * reasoning, calls as tool parts. The pieces are the ones every text backend of toolbridge reads through
 * (`TextCallReader`, `SingleCallGate`, `StopAtVisibleText`).
 */
export class ProtocolOutputReader {
  readonly #reader: TextCallReader;
  readonly #gate: SingleCallGate | undefined;
  readonly #stop: StopAtVisibleText | undefined;
  readonly #writer: StreamPartWriter;

  constructor(options: ProtocolOutputOptions, emit: (part: LanguageModelV3StreamPart) => void) {
    // Not callable (no tool offered, or toolChoice "none"): no call parsing, the text is the answer (as on /v1).
    this.#reader = new TextCallReader({
      protocol: options.protocol,
      tools: options.tools,
      toolChoice: options.callable ? "auto" : "none",
    });
    this.#gate = options.singleCall && options.callable ? new SingleCallGate(true) : undefined;
    const stops = options.stops.filter((s) => s !== "");
    this.#stop = stops.length > 0 && options.callable ? new StopAtVisibleText(stops) : undefined;
    this.#writer = new StreamPartWriter(emit);
  }

  /** Tool calls written so far (readable or not). */
  get calls(): number {
    return this.#writer.calls;
  }

  /** Nothing more of the output can come out: a stop string was reached, or the one call allowed is complete. */
  get done(): boolean {
    return this.#gate?.closed === true || this.#stop?.stopped === true;
  }

  /** A piece of the model's text. */
  text(delta: string): void {
    if (this.done) return;
    const events = this.#reader.push(delta);
    this.#write(this.#gate ? this.#gate.read(events) : events);
  }

  /** The end of the output: what was still open is finished, or reported cut off; open blocks are ended. */
  end(): void {
    if (!this.done) {
      const events = this.#reader.end();
      this.#write(this.#gate ? this.#gate.read(events) : events);
    }
    // A tail held back because it might have begun a stop string is text after all.
    if (this.#stop && !this.#stop.stopped)
      for (const event of this.#stop.read({ type: "finish", reason: "stop" }))
        if (event.type !== "finish") this.#writer.write(event);
    this.#writer.end();
  }

  #write(events: readonly ModelEvent[]): void {
    for (const event of events) {
      if (this.#stop) for (const visible of this.#stop.read(event)) this.#writer.write(visible);
      else this.#writer.write(event);
    }
  }
}
