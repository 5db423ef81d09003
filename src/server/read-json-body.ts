import type { Context } from "hono";
import { badRequest } from "./http-error.js";

/** A request's JSON body (undefined when there is none); malformed JSON is a 400 `invalid_json` saying where. */
export async function readJsonBody(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw badRequest(
      `The request body is not valid JSON (${(error as Error).message}); send one JSON value with Content-Type: application/json. Nothing was changed.`,
      null,
      "invalid_json",
    );
  }
}
