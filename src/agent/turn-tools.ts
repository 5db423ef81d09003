import type { Tool } from "@modelcontextprotocol/server";
import type { AgentMessage } from "../core/agent-message.js";
import type { ToolChoice } from "../core/language-model.js";
import { selectTools, type ToolSelection } from "../tools/select-tools.js";
import { ToolIndex } from "../tools/tool-index.js";
import { AgentConfigError } from "./agent-errors.js";

/** What a turn's tool choice depends on: the conversation so far and the tools the run has called. */
export interface TurnContext {
  messages: readonly AgentMessage[];
  called: readonly string[];
}

/**
 * The tools one turn offers, with `toolSelection`: the catalogue's best `maxTools` for the conversation (see
 * selectTools), the index built once per catalogue (it is rebuilt when the catalogue changes, e.g. an MCP server
 * mounts). Without a selection, or for a catalogue no longer than `maxTools`, the whole catalogue.
 */
export class TurnTools {
  readonly #selection: ToolSelection | undefined;
  #indexed: readonly Tool[] | undefined;
  #index: ToolIndex | undefined;

  constructor(selection: ToolSelection | undefined) {
    if (selection !== undefined && (!Number.isInteger(selection.maxTools) || selection.maxTools < 1)) {
      throw new AgentConfigError(
        `toolSelection.maxTools must be a positive integer, got ${JSON.stringify(selection.maxTools)}.`,
      );
    }
    this.#selection = selection;
  }

  /** Whether turns may offer less than the whole catalogue. */
  get selecting(): boolean {
    return this.#selection !== undefined;
  }

  for(catalogue: readonly Tool[], context: TurnContext, toolChoice: ToolChoice): readonly Tool[] {
    const selection = this.#selection;
    if (!selection || catalogue.length <= selection.maxTools) return catalogue;
    if (this.#indexed !== catalogue) {
      this.#index = new ToolIndex(catalogue);
      this.#indexed = catalogue;
    }
    const requests = context.messages.filter((m) => m.role === "user").map((m) => m.content);
    return selectTools({
      tools: catalogue,
      index: this.#index!,
      requests,
      selection,
      called: context.called,
      keep: typeof toolChoice === "object" ? [toolChoice.name] : [],
    });
  }
}
