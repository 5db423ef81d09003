import type { CallToolResult } from "@modelcontextprotocol/server";
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
 * values become their text.
 */
export function normalizeToolResult(output: ToolHandlerOutput): CallToolResult {
  if (isCallToolResult(output)) return output;
  if (typeof output === "string") return { content: [{ type: "text", text: output }] };
  if (output === undefined || output === null) return { content: [] };
  if (typeof output === "object" && !Array.isArray(output)) {
    const structured = JSON.parse(stringify(output)) as Record<string, unknown>;
    return { content: [{ type: "text", text: stringify(output) }], structuredContent: structured };
  }
  if (typeof output === "object") return { content: [{ type: "text", text: stringify(output) }] };
  return { content: [{ type: "text", text: String(output) }] };
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
