import { createHash } from "node:crypto";

const MAX_NAME = 128;

/** Replace everything MCP tool names do not allow (`A-Za-z0-9_.-`) with `_`; never empty. */
export function sanitizeNamePart(part: string): string {
  const cleaned = part.replace(/[^A-Za-z0-9_.-]/g, "_");
  return cleaned.length > 0 ? cleaned : "_";
}

/**
 * The registry name of a mounted tool: `<server>.<tool>`, cleaned to MCP's name rules. Names that would exceed 128
 * characters are cut and end in a short hash of the full name, so two long names still differ.
 */
export function namespaceToolName(server: string, tool: string): string {
  const name = `${sanitizeNamePart(server)}.${sanitizeNamePart(tool)}`;
  if (name.length <= MAX_NAME) return name;
  const hash = createHash("sha256").update(`${server}\u0000${tool}`).digest("hex").slice(0, 8);
  return `${name.slice(0, MAX_NAME - 9)}-${hash}`;
}
