/** What the user answered at `Allow tool(args)? [y]es / [n]o / [e]dit args / [a]lways for this chat`. */
export type ApprovalAnswer =
  | { kind: "yes" }
  | { kind: "no"; reason?: string }
  | { kind: "edit" }
  | { kind: "always" }
  | { kind: "unclear" };

/**
 * `y`/`yes`, `n`/`no` (anything after it is the reason the model is told: `n not that file`), `e`/`edit`,
 * `a`/`always`; case-insensitive. Anything else is unclear and the question is asked again — an approval is never
 * guessed.
 */
export function parseApprovalAnswer(text: string): ApprovalAnswer {
  const trimmed = text.trim();
  const match = /^(\S+)\s*(.*)$/s.exec(trimmed);
  if (!match) return { kind: "unclear" };
  const word = (match[1] as string).toLowerCase();
  const rest = (match[2] as string).trim();
  if ((word === "y" || word === "yes") && rest === "") return { kind: "yes" };
  if ((word === "e" || word === "edit") && rest === "") return { kind: "edit" };
  if ((word === "a" || word === "always") && rest === "") return { kind: "always" };
  if (word === "n" || word === "no") return rest ? { kind: "no", reason: rest } : { kind: "no" };
  return { kind: "unclear" };
}

export function approvalQuestion(name: string, args: Record<string, unknown>, max = 300): string {
  let json = JSON.stringify(args);
  if (json.length > max) json = `${json.slice(0, max)}…`;
  return `Allow ${name}(${json})? [y]es / [n]o / [e]dit args / [a]lways for this chat `;
}
