import type { CallToolResult, Tool } from "@modelcontextprotocol/server";
import type { AgentToolCall } from "../core/agent-message.js";

/**
 * One tool call read out of (or rendered into) model text: the shape the agent's messages carry (core's
 * AgentToolCall), so a parsed call goes into a transcript and back out without a conversion.
 */
export type ToolCall = AgentToolCall;

/** The outcome of one call, as it goes back into the transcript. */
export interface ToolResultItem {
  /** Id of the call this result answers. */
  callId: string;
  name: string;
  result: CallToolResult;
}

/** Events of the incremental parser, in text order. */
export type ParserEvent =
  | { type: "content"; text: string }
  | { type: "reasoning"; text: string }
  /** A call has begun; `index` counts calls across the whole output, from 0. */
  | { type: "call-start"; index: number; id: string; name: string }
  /**
   * Raw argument text as it streams. Best effort: present when the format lets the arguments be isolated
   * and the name came first; the parsed arguments of `call-end` are authoritative.
   */
  | { type: "call-args-delta"; index: number; text: string }
  | { type: "call-end"; index: number; call: ToolCall; raw: string; repaired: boolean }
  /** Markup that looked like a call but could not be read. `index` is set when a `call-start` was emitted. */
  | { type: "parse-error"; index?: number; raw: string; message: string }
  /** Output ended inside a call (reported by `end()` only). The call is not emitted. */
  | { type: "truncated"; index?: number; raw: string; message: string };

export interface ToolCallParser {
  push(chunk: string): ParserEvent[];
  end(): ParserEvent[];
}

export interface ParserOptions {
  /** The tools offered to the model: their schemas drive coercion of text-carried values. */
  tools?: readonly Tool[];
  /** What the prompt ended with (`<think>` means the output starts inside reasoning). */
  prefix?: string;
  /** Id factory for calls whose text carries no id. */
  createId?: () => string;
  /**
   * false: the model was offered no tool (or told to call none), so nothing it writes is a call: markup that would
   * be one comes back as content, exactly as written. Reasoning is still read as reasoning. Default true.
   */
  calls?: boolean;
}

export interface ParseError {
  message: string;
  raw: string;
}

export interface ParseResult {
  calls: ToolCall[];
  /** Text outside markup, trimmed at both ends. */
  content: string;
  reasoning: string;
  errors: ParseError[];
  truncated: boolean;
}

export interface RenderCatalogueOptions {
  /** Allow several calls in one turn (default true). */
  parallel?: boolean;
  /** Extra instruction lines appended to the usage rules. */
  extraInstructions?: string;
}

export interface AssistantTurn {
  content?: string;
  calls: readonly ToolCall[];
}

/** What the JSON body of a call is, so a grammar can constrain it once a call-start marker appears. */
export type CallBodyKind =
  /** `{"name": …, "arguments": {…}}` */
  | "json-call"
  /** the arguments object alone, the name comes from the marker */
  | "json-arguments"
  /** an envelope object holding the call(s) */
  | "json-envelope"
  /** not JSON (pythonic, XML-ish) */
  | "text";
