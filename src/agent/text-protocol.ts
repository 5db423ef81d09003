import type { ToolCallProtocol } from "../protocols/protocol.js";

/**
 * What the loop needs from a text tool-call protocol: a streaming parser for the model's text. (A text-only model
 * adapter uses the rest of the protocol — catalogue and transcript rendering — itself.)
 */
export type TextCallProtocol = Pick<ToolCallProtocol, "id" | "createParser">;
