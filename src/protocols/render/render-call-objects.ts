import type { ToolCall } from "../types.js";

export interface CallObjectFrame {
  /** Key the arguments go under: `arguments` (Hermes family) or `parameters` (Llama 3, Gemma). */
  argumentsKey?: "arguments" | "parameters";
  /** Written before each call's JSON (e.g. `<tool_call>\n`). */
  open?: string;
  /** Written after each call's JSON. */
  close?: string;
  /** Between calls (default `\n`). */
  separator?: string;
  /** `JSON.stringify` indentation (default none: one line per call). */
  indent?: number;
}

/** Calls as `{"name": …, "arguments": {…}}` JSON objects, each wrapped in the format's call markup. */
export function renderCallObjects(calls: readonly ToolCall[], frame: CallObjectFrame = {}): string {
  const { argumentsKey = "arguments", open = "", close = "", separator = "\n", indent } = frame;
  return calls
    .map(
      (c) => `${open}${JSON.stringify({ name: c.name, [argumentsKey]: c.arguments }, null, indent)}${close}`,
    )
    .join(separator);
}
