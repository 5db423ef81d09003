import { resultToText } from "../core/render-helpers.js";
import type { ToolResultItem } from "../types.js";

export interface ResultTextFrame {
  /** Written before each result's text (e.g. `<tool_response>\n`). */
  open?: string;
  /** Written after each result's text. */
  close?: string;
  /** Between results (default `\n`). */
  separator?: string;
}

/** `<tool_response>` blocks, as the Hermes / Qwen templates (and GLM's, and Qwen3-Coder's) write results. */
export const TOOL_RESPONSE_BLOCK: ResultTextFrame = {
  open: "<tool_response>\n",
  close: "\n</tool_response>",
};

/**
 * Tool results as their text, each wrapped in the format's result markup: the shape of every format whose
 * results are plain text blocks (`<tool_response>`, ```` ```tool_output ````, `[TOOL_RESULTS]`, or nothing).
 */
export function renderResultTexts(results: readonly ToolResultItem[], frame: ResultTextFrame = {}): string {
  const { open = "", close = "", separator = "\n" } = frame;
  return results.map((r) => `${open}${resultToText(r.result)}${close}`).join(separator);
}
