/**
 * The arguments of a tool call in an AI SDK prompt: its input when that is an object (as the SDK stores a call it could
 * parse), or a JSON string of one. Anything else is undefined — the SDK gives back the raw text of a call that did
 * not parse (`invalid` calls), and that text is shown to the model as it wrote it, not repaired into something else.
 */
export function readCallInput(input: unknown): Record<string, unknown> | undefined {
  let value = input;
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
