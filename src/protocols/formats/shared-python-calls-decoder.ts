import type { DecodeOutcome } from "../core/call-body-region.js";
import { coerceArgumentsBySchema } from "../core/coerce-by-schema.js";
import { parsePythonCalls } from "../core/python-literal-parser.js";
import type { EngineContext } from "../core/stream-engine.js";

/**
 * Decoder for pythonic call text (`[f(a=1), g(b="x")]` or `f(a=1)`): read by the literal parser — nothing is
 * evaluated — with values coerced by the offered tools' schemas (a bare `True` or `"3"` may be meant otherwise).
 */
export function decodePythonCalls(raw: string, ctx: EngineContext): DecodeOutcome {
  let r = parsePythonCalls(raw);
  if (!r.ok) {
    // A list whose `]` was cut off by the end of output (the calls in it are complete): close it.
    const t = raw.trimEnd();
    if (t.trimStart().startsWith("[") && !t.endsWith("]")) {
      const closed = parsePythonCalls(`${t}]`);
      if (closed.ok) r = closed;
    }
  }
  if (!r.ok) return { error: r.error };
  return {
    items: r.calls.map((c) => ({
      kind: "call" as const,
      name: c.name,
      arguments: coerceArgumentsBySchema(c.name, c.arguments, ctx.tools),
      repaired: false,
    })),
  };
}
