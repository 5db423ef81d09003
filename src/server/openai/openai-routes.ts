import { Hono } from "hono";
import type { Redactor } from "../../tools/redact-secrets.js";
import type { ModelCatalog } from "../model-catalog.js";
import { chatCompletionsHandler } from "./chat-completions-route.js";
import { OpenAIApiError, openAIErrorResponse } from "./openai-api-error.js";

export interface OpenAIRoutesOptions {
  models: ModelCatalog;
  /** The server's redactor (the tool executor's): every secret the model writes is replaced on the way out. */
  redactor?: Redactor | undefined;
}

/**
 * The OpenAI-compatible API, mounted at `/v1`: `GET /v1/models` and `POST /v1/chat/completions` over every model of
 * the catalog — local GGUF files, text-only /v1/completions servers and chat APIs alike get tool calling. The client's
 * tools go to the model; the calls it makes come back as `tool_calls` for the client to run (this API runs no tool).
 */
export function createOpenAIRoutes(options: OpenAIRoutesOptions): Hono {
  const v1 = new Hono();
  const catalog = options.models;
  v1.get("/models", (c) =>
    c.json({
      object: "list",
      data: catalog.names().map((id) => ({ id, object: "model", created: 0, owned_by: catalog.ownedBy(id) })),
    }),
  );
  v1.get("/models/:name{.+}", (c) => {
    const id = c.req.param("name");
    if (!catalog.has(id))
      return openAIErrorResponse(
        new OpenAIApiError(
          404,
          `The model "${id}" does not exist on this server. Available: ${catalog.names().join(", ")}.`,
          "invalid_request_error",
          "model",
          "model_not_found",
        ),
      );
    return c.json({ id, object: "model", created: 0, owned_by: catalog.ownedBy(id) });
  });
  const turns = { catalog, redactor: options.redactor };
  v1.post("/chat/completions", chatCompletionsHandler(turns));
  v1.notFound((c) =>
    openAIErrorResponse(
      new OpenAIApiError(
        404,
        `${c.req.method} ${c.req.path} is not a route of this server's OpenAI-compatible API; it has GET /v1/models and POST /v1/chat/completions.`,
        "invalid_request_error",
        null,
        "unknown_url",
      ),
    ),
  );
  return v1;
}
