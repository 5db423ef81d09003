/**
 * A request field's path as OpenAI writes it in an error's `param`: `messages[2].tool_call_id`,
 * `decisions[0].callId`; null for the body itself.
 */
export function paramPath(path: readonly PropertyKey[]): string | null {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out === "" ? String(key) : `.${String(key)}`;
  }
  return out === "" ? null : out;
}
