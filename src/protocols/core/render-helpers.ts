import type { CallToolResult, Tool } from "@modelcontextprotocol/server";

/** A tool as OpenAI-style function JSON — the shape most chat templates and models were trained on. */
export function toolToFunctionJson(tool: Tool): { name: string; description: string; parameters: unknown } {
  return { name: tool.name, description: tool.description ?? tool.title ?? "", parameters: tool.inputSchema };
}

/** The result's text for a model: text blocks joined; other blocks summarised; errors prefixed. */
export function resultToText(result: CallToolResult): string {
  const parts: string[] = [];
  for (const block of result.content ?? []) {
    if (block.type === "text") parts.push(block.text);
    else if (block.type === "image" || block.type === "audio")
      parts.push(`[${block.type}: ${block.mimeType}]`);
    else if (block.type === "resource") {
      const r = block.resource;
      parts.push("text" in r && typeof r.text === "string" ? r.text : `[resource: ${r.uri}]`);
    } else if (block.type === "resource_link") parts.push(`[resource: ${block.uri}]`);
  }
  let text = parts.join("\n");
  if (text === "" && result.structuredContent !== undefined) text = JSON.stringify(result.structuredContent);
  if (result.isError && !/^error\b/i.test(text)) text = `Error: ${text}`;
  return text;
}

/** The result as a JSON value for envelope formats: structured content, else the text (as JSON when it is). */
export function resultToJsonValue(result: CallToolResult): unknown {
  if (result.structuredContent !== undefined) return result.structuredContent;
  const text = resultToText(result);
  const t = text.trim();
  if (t.startsWith("{") || t.startsWith("[")) {
    try {
      return JSON.parse(t);
    } catch {
      return text;
    }
  }
  return text;
}

/** Joins optional prose and rendered calls the way models write them: prose, blank line, calls. */
export function joinContentAndCalls(content: string | undefined, calls: string): string {
  const c = content?.trim() ?? "";
  if (c === "") return calls;
  if (calls === "") return c;
  return `${c}\n\n${calls}`;
}
