import type { DecodeOutcome } from "../core/call-body-region.js";
import { coerceArgumentsBySchema } from "../core/coerce-by-schema.js";
import { parsePythonCalls } from "../core/python-literal-parser.js";
import type { EngineContext } from "../core/stream-engine.js";

/**
 * Decoder for pythonic call text (`[f(a=1), g(b="x")]` or `f(a=1)`): read by the literal parser — nothing is
 * evaluated — with values coerced by the offered tools' schemas (a bare `True` or `"3"` may be meant otherwise).
 */
export function decodePythonCalls(raw: string, ctx: EngineContext): DecodeOutcome {
  const r = parsePythonCalls(raw);
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
