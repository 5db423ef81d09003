import type { ToolCall } from "../types.js";

/** A JSON value as a Python literal (strings use JSON escapes, which Python reads the same way). */
export function toPythonLiteral(v: unknown): string {
  if (v === null || v === undefined) return "None";
  if (v === true) return "True";
  if (v === false) return "False";
  if (typeof v === "number") return Number.isFinite(v) ? String(v) : "None";
  if (typeof v === "string") return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(toPythonLiteral).join(", ")}]`;
  if (typeof v === "object") {
    return `{${Object.entries(v as Record<string, unknown>)
      .map(([k, x]) => `${JSON.stringify(k)}: ${toPythonLiteral(x)}`)
      .join(", ")}}`;
  }
  return JSON.stringify(String(v));
}

/** `name(key=literal, …)` — one call in the pythonic syntax of BFCL, Llama 3.2/4 and Gemma's `tool_code`. */
export function renderPythonCall(call: Pick<ToolCall, "name" | "arguments">): string {
  const args = Object.entries(call.arguments)
    .map(([k, v]) => `${k}=${toPythonLiteral(v)}`)
    .join(", ");
  return `${call.name}(${args})`;
}
