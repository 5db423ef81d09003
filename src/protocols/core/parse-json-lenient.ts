import { jsonrepair } from "jsonrepair";

export type LenientJsonResult =
  | { ok: true; value: unknown; repaired: boolean }
  | { ok: false; error: string };

const FENCE_RE = /^\s*```[A-Za-z_]*\s*\n?([\s\S]*?)\s*```\s*$/;

/** Removes one code fence around the text, if there is one. */
export function stripCodeFence(text: string): string {
  const m = FENCE_RE.exec(text);
  return m ? m[1]! : text;
}

/**
 * Strict `JSON.parse` first; only when that fails, `jsonrepair` (trailing commas, single quotes, unquoted
 * keys, missing closers, Python constants). The error names the strict parser's complaint, which is what a
 * model needs to fix its output.
 */
export function parseJsonLenient(text: string): LenientJsonResult {
  const body = stripCodeFence(text).trim();
  try {
    return { ok: true, value: JSON.parse(body), repaired: false };
  } catch (strictError) {
    try {
      return { ok: true, value: JSON.parse(jsonrepair(body)), repaired: true };
    } catch {
      return { ok: false, error: describeJsonError(strictError, body) };
    }
  }
}

function describeJsonError(err: unknown, body: string): string {
  const msg = err instanceof Error ? err.message : String(err);
  if (body.length === 0) return "it is empty";
  const pos = /position (\d+)/.exec(msg);
  if (pos) {
    const at = Number(pos[1]);
    const near = body.slice(Math.max(0, at - 20), at + 20).replace(/\s+/g, " ");
    return `${msg.replace(/ in JSON at position \d+.*$/, "")} at character ${at} (near \`${near}\`)`;
  }
  return msg;
}
