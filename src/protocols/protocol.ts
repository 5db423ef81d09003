import type { Tool } from "@modelcontextprotocol/server";
import type {
  AssistantTurn,
  CallBodyKind,
  ParserOptions,
  RenderCatalogueOptions,
  ToolCallParser,
  ToolResultItem,
} from "./types.js";

/**
 * One text tool-call format family: how tools are described to a model, how calls and results are written
 * into a transcript, and how calls are read back out of generated text.
 */
export interface ToolCallProtocol {
  /** Format id, e.g. `hermes` (see `KNOWN_PROTOCOL_IDS`). */
  readonly id: string;
  readonly description: string;
  /** A system-prompt section: the tools, how to call them, an example. */
  renderCatalogue(tools: readonly Tool[], opts?: RenderCatalogueOptions): string;
  /** An assistant turn (optional prose, then the calls) as the model would write it. */
  renderAssistantTurn(turn: AssistantTurn): string;
  /** The text of the message that carries tool results back to the model. */
  renderToolResults(results: readonly ToolResultItem[]): string;
  /** Role to send `renderToolResults` text as when the chat template has no tool role. */
  readonly resultRole: "user" | "tool";
  /** A fresh incremental parser for one model output. */
  createParser(opts?: ParserOptions): ToolCallParser;
  /** Stop generation at these strings (e.g. a hallucinated result marker). */
  readonly stopSequences: readonly string[];
  /** Text that opens a call; a backend may switch on a grammar for the call body once one appears. */
  readonly callStartMarkers: readonly string[];
  readonly callBody: CallBodyKind;
}
