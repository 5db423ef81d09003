import type { CallToolResult } from "@modelcontextprotocol/server";
import { type Redactor, redactDeep } from "./redact-secrets.js";
import type { ToolHandlerOutput } from "./tool-definition.js";

const CONTENT_TYPES = new Set(["text", "image", "audio", "resource", "resource_link"]);

function isCallToolResult(value: unknown): value is CallToolResult {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const content = (value as { content?: unknown }).content;
  return (
    Array.isArray(content) &&
    content.every(
      (block) =>
        block !== null &&
        typeof block === "object" &&
        CONTENT_TYPES.has(String((block as { type?: unknown }).type)),
    )
  );
}

function stringify(value: unknown): string {
  try {
    return JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? v.toString() : v));
  } catch {
    return String(value);
  }
}

/**
 * Turn whatever a handler returned into an MCP CallToolResult: a string becomes one text block; a plain object
 * becomes `structuredContent` plus its JSON as text (MCP asks servers to send both for older clients); other
 * values become their text. With a redactor, values are redacted before they are turned into JSON text: a secret
 * with a quote or backslash in it reads differently once JSON.stringify has escaped it.
 */
export function normalizeToolResult(output: ToolHandlerOutput, redact?: Redactor): CallToolResult {
  const clean = <T>(value: T): T => (redact ? redactDeep(value, redact) : value);
  if (isCallToolResult(output)) return clean(output);
  if (typeof output === "string") return { content: [{ type: "text", text: clean(output) }] };
  if (output === undefined || output === null) return { content: [] };
  if (typeof output === "object") {
    // Through JSON first (dates, toJSON, bigint become what the model will read), then redacted, then text.
    let plain: unknown;
    try {
      plain = clean(JSON.parse(stringify(output)) as unknown);
    } catch {
      return { content: [{ type: "text", text: clean(String(output)) }] }; // a cycle: no JSON form
    }
    const text = stringify(plain);
    if (plain === null || typeof plain !== "object" || Array.isArray(plain))
      return { content: [{ type: "text", text }] };
    return { content: [{ type: "text", text }], structuredContent: plain as Record<string, unknown> };
  }
  return { content: [{ type: "text", text: clean(String(output)) }] };
}

/** An `isError` result with one text block: how failures are reported to a model (MCP: tool errors are results). */
export function errorResult(message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}

/** All text blocks of a result, joined: what a text-only model sees. */
export function resultText(result: CallToolResult): string {
  return result.content
    .map((block) => {
      if (block.type === "text") return block.text;
      if (block.type === "resource" && "text" in block.resource) return String(block.resource.text);
      if (block.type === "resource_link") return `[resource: ${block.uri}]`;
      return `[${block.type}]`;
    })
    .join("\n");
}
