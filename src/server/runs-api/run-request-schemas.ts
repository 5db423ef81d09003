import { z } from "zod";
import { badRequest } from "../http-error.js";
import { parseWithSchema } from "../parse-with-schema.js";

const limit = z.number().int().min(0);

/** `POST /api/runs` and the WebSocket's `runs/start`. */
export const startRunSchema = z.strictObject({
  message: z.string().min(1, "message must not be empty"),
  conversationId: z.string().min(1).optional(),
  model: z.string().min(1).optional(),
  toolChoice: z
    .union([z.enum(["auto", "required", "none"]), z.strictObject({ name: z.string().min(1) })])
    .optional(),
  limits: z
    .strictObject({
      maxSteps: limit.min(1),
      maxToolCalls: limit,
      stepTimeoutMs: limit.min(1),
      totalTimeoutMs: limit.min(1),
      maxConsecutiveFailures: limit.min(1),
      maxRepairs: limit,
    })
    .partial()
    .optional(),
});

const decisionSchema = z.discriminatedUnion("decision", [
  z.strictObject({
    callId: z.string().min(1),
    decision: z.literal("approve"),
    arguments: z.record(z.string(), z.unknown()).optional(),
  }),
  z.strictObject({ callId: z.string().min(1), decision: z.literal("deny"), reason: z.string().optional() }),
]);

/** `POST /api/runs/{id}/decisions` and the WebSocket's `runs/decide`. */
export const decisionsSchema = z.strictObject({
  decisions: z.array(decisionSchema).min(1, "decisions must name at least one call"),
});

/** `PATCH /api/conversations/{id}`: a new title, trimmed, 1–200 characters. */
export const renameConversationSchema = z.strictObject({
  title: z.string().trim().min(1, "title must not be empty").max(200, "title must be at most 200 characters"),
});

/**
 * Parse `value` with `schema`, or throw a 400 (`invalid_body`) listing every problem with its path; `param` names the
 * first field at fault.
 */
export function parseBody<T extends z.ZodType>(schema: T, value: unknown, what: string): z.infer<T> {
  return parseWithSchema(schema, value, {
    message: (issues) =>
      `Invalid ${what}: ${issues.map((i) => `${i.path.length ? i.path.join(".") : what}: ${i.message}`).join("; ")}.`,
  });
}

/** A sequence number from Last-Event-ID or `after`: a whole number ≥ 0, else a 400. */
export function parseSeq(text: string | undefined, what: string): number {
  if (text === undefined || text.trim() === "") return 0;
  const value = Number(text.trim());
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value)) {
    throw badRequest(
      `${what} must be an event sequence number (a whole number ≥ 0), got "${text}".`,
      what,
      "invalid_seq",
    );
  }
  return value;
}
