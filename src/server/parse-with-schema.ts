import type { z } from "zod";
import { HttpError } from "./http-error.js";
import { paramPath } from "./param-path.js";

export interface SchemaRefusal {
  /** 400 (default) for a body that is not what the route takes; 422 for values it cannot accept. */
  status?: 400 | 422;
  /** Default `invalid_body`. */
  code?: string;
  /** The message, from the issues in the order zod found them (each issue's message is the schema's own). */
  message(issues: readonly z.core.$ZodIssue[]): string;
}

/**
 * A request body (or message) through its zod schema: the parsed value, or an HttpError whose `param` names the first
 * field at fault (`decisions[0].callId`) and whose message the route words. Nothing is changed before this passes.
 */
export function parseWithSchema<T extends z.ZodType>(
  schema: T,
  value: unknown,
  refusal: SchemaRefusal,
): z.infer<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues;
  throw new HttpError(refusal.status ?? 400, refusal.message(issues), {
    param: paramPath(issues[0]?.path ?? []),
    code: refusal.code ?? "invalid_body",
  });
}
