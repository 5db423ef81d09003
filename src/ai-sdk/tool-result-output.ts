import type { LanguageModelV3ToolResultOutput } from "@ai-sdk/provider";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { errorResult, resultText } from "../tools/normalize-tool-result.js";

type ContentBlock = CallToolResult["content"][number];

/** One part of a `content` output: the V3 shapes (`image-data`, `file-data`, `file-url`…) and V4's tagged `file`. */
type OutputPart = { type: string } & Record<string, unknown>;

const text = (value: string): ContentBlock => ({ type: "text", text: value });

function partToBlock(part: OutputPart): ContentBlock {
  const mediaType = typeof part.mediaType === "string" ? part.mediaType : undefined;
  switch (part.type) {
    case "text":
      return text(String(part.text ?? ""));
    case "image-data":
    case "file-data":
      if (typeof part.data === "string" && mediaType?.startsWith("image/"))
        return { type: "image", data: part.data, mimeType: mediaType };
      return text(`[file: ${mediaType ?? "unknown type"}]`);
    case "file": {
      // V4: `data` is tagged — raw bytes, a URL, a provider reference or inline text.
      const data = (part.data ?? {}) as Record<string, unknown>;
      if (data.type === "text" && typeof data.text === "string") return text(data.text);
      if (data.type === "data" && typeof data.data === "string" && mediaType?.startsWith("image/"))
        return { type: "image", data: data.data, mimeType: mediaType };
      if (data.type === "url") return text(`[file: ${String(data.url)}]`);
      return text(`[file: ${mediaType ?? "unknown type"}]`);
    }
    case "file-url":
    case "image-url":
      return text(`[file: ${String(part.url)}]`);
    default:
      return text(`[${part.type}]`);
  }
}

/**
 * A tool's result as the AI SDK carries it in a prompt (`tool-result.output`, V3 and V4 shapes) as the MCP result a
 * text protocol renders: errors and denials become `isError` results a model reads as such.
 */
export function fromToolResultOutput(
  output: LanguageModelV3ToolResultOutput,
  toolName: string,
): CallToolResult {
  switch (output.type) {
    case "text":
      return { content: [text(output.value)] };
    case "json":
      return { content: [text(JSON.stringify(output.value))] };
    case "error-text":
      return errorResult(output.value);
    case "error-json":
      return errorResult(JSON.stringify(output.value));
    case "execution-denied": {
      const reason = output.reason?.trim().replace(/[.!?]+$/, "");
      return errorResult(
        `The call to ${toolName} was denied${reason ? `: ${reason}.` : "."} It was not run.`,
      );
    }
    case "content":
      return { content: (output.value as unknown as OutputPart[]).map(partToBlock) };
    default:
      return { content: [text(JSON.stringify(output))] };
  }
}

/**
 * An MCP result as the AI SDK's model output (a tool's `toModelOutput`): text alone stays text, images go as image
 * parts, and an `isError` result is `error-text`, so providers that mark failed calls (Anthropic's `is_error`) do.
 */
export function toToolResultOutput(result: CallToolResult): LanguageModelV3ToolResultOutput {
  // A result of structured content alone (an MCP server may send no text) reads as its JSON.
  const whole =
    resultText(result) || (result.structuredContent ? JSON.stringify(result.structuredContent) : "");
  if (result.isError) return { type: "error-text", value: whole };
  if (result.content.every((block) => block.type !== "image")) return { type: "text", value: whole };
  return {
    type: "content",
    value: result.content.map((block) =>
      block.type === "image"
        ? { type: "image-data" as const, data: block.data, mediaType: block.mimeType }
        : { type: "text" as const, text: resultText({ content: [block] }) },
    ),
  };
}
