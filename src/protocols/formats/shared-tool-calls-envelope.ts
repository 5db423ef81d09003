import type { JsonPath } from "../core/json-scanner.js";

/**
 * The calls of a `{"tool_calls": [...]}` or `{"tool_call": {...}}` envelope (the shapes reference 001 and
 * llama.cpp's generic format share), or undefined when the object holds neither.
 */
export function envelopeCalls(o: Record<string, unknown>): unknown[] | undefined {
  if (Array.isArray(o.tool_calls)) return o.tool_calls;
  if (o.tool_call && typeof o.tool_call === "object") return [o.tool_call];
  return undefined;
}

/** Paths of the call objects inside such an envelope: `tool_calls[i]` and `tool_call`. */
export function isEnvelopeCallPath(p: JsonPath): boolean {
  return (
    (p.length === 2 && p[0] === "tool_calls" && typeof p[1] === "number") ||
    (p.length === 1 && p[0] === "tool_call")
  );
}
