import type { DecodedItem, DecodeOutcome } from "./call-body-region.js";
import { decodeCallObject } from "./decode-call-object.js";
import { parseJsonLenient } from "./parse-json-lenient.js";

/** Decoded call object → body item. */
export function callItem(value: unknown, example: string): DecodedItem {
  const d = decodeCallObject(value, example);
  if (!d.ok) return { kind: "error", message: d.error };
  return {
    kind: "call",
    name: d.name,
    arguments: d.arguments,
    repaired: d.repaired,
    ...(d.id ? { id: d.id } : {}),
  };
}

/**
 * Decoder for bodies holding one call object or an array of them (`<tool_call>{…}</tool_call>`).
 * `select` picks the call objects out of the parsed value when the format wraps them.
 */
export function jsonCallsDecoder(
  example: string,
  select: (value: unknown) => unknown[] | DecodedItem[] | { error: string } = (v) =>
    Array.isArray(v) ? v : [v],
) {
  return (raw: string): DecodeOutcome => {
    const parsed = parseJsonLenient(raw);
    if (!parsed.ok) return { error: parsed.error };
    const picked = select(parsed.value);
    if (!Array.isArray(picked)) return picked;
    const items = picked.map((v): DecodedItem => {
      if (isItem(v)) return v;
      const item = callItem(v, example);
      return item.kind === "call" && parsed.repaired ? { ...item, repaired: true } : item;
    });
    return { items };
  };
}

function isItem(v: unknown): v is DecodedItem {
  return (
    typeof v === "object" &&
    v !== null &&
    "kind" in v &&
    ((v as DecodedItem).kind === "content" ||
      (v as DecodedItem).kind === "reasoning" ||
      (v as DecodedItem).kind === "error")
  );
}
