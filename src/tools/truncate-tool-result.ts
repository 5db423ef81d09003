import type { CallToolResult } from "@modelcontextprotocol/server";
import { REDACTED } from "./redact-secrets.js";

/**
 * Cut the text of a result to `maxChars` in total, with a note a model understands. Structured content larger than
 * the limit is dropped for the same reason (it would reach the model anyway), and the note says so.
 */
export function truncateToolResult(result: CallToolResult, maxChars: number): CallToolResult {
  let total = 0;
  for (const block of result.content) if (block.type === "text") total += block.text.length;
  const structuredSize = result.structuredContent ? JSON.stringify(result.structuredContent).length : 0;
  if (total <= maxChars && structuredSize <= maxChars) return result;

  let budget = maxChars;
  const content: CallToolResult["content"] = [];
  for (const block of result.content) {
    if (block.type !== "text") {
      content.push(block);
      continue;
    }
    if (budget <= 0) continue;
    if (block.text.length <= budget) {
      content.push(block);
      budget -= block.text.length;
    } else {
      // Never split a surrogate pair: a lone half would corrupt the JSON we send on.
      let cut = budget;
      const code = block.text.charCodeAt(cut - 1);
      if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
      // Nor a redaction marker: "[RED" would read like a damaged value rather than a withheld one.
      const marker = block.text.lastIndexOf(REDACTED, cut - 1);
      if (marker !== -1 && marker < cut && marker + REDACTED.length > cut) cut = marker;
      content.push({ ...block, text: block.text.slice(0, cut) });
      budget = 0;
    }
  }
  const notes: string[] = [];
  if (total > maxChars) notes.push(`output truncated: showing the first ${maxChars} of ${total} characters`);
  if (structuredSize > maxChars) notes.push(`structured output of ${structuredSize} characters omitted`);
  content.push({ type: "text", text: `\n[${notes.join("; ")}]` });
  const { structuredContent: _dropped, ...rest } = result;
  return structuredSize > maxChars ? { ...rest, content } : { ...result, content };
}
