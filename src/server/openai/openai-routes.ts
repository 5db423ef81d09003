import { Hono } from "hono";
import type { Redactor } from "../../tools/redact-secrets.js";
import { messagesHandler } from "../anthropic/messages-route.js";
import { errorResponse } from "../error-response.js";
import { HttpError } from "../http-error.js";
import { type ModelCatalog, ModelNotFoundError } from "../model-catalog.js";
import { chatCompletionsHandler } from "./chat-completions-route.js";
import { responsesHandler } from "./responses/responses-route.js";

/** The routes of /v1, for the message a wrong path gets. */
const V1_ROUTES = "GET /v1/models, POST /v1/chat/completions, POST /v1/responses and POST /v1/messages";

export interface OpenAIRoutesOptions {
  models: ModelCatalog;
  /** The server's redactor (the tool executor's): every secret the model writes is replaced on the way out. */
  redactor?: Redactor | undefined;
}

/**
 * The OpenAI- and Anthropic-compatible API, mounted at `/v1`: `GET /v1/models`, `POST /v1/chat/completions`,
 * `POST /v1/responses` and `POST /v1/messages` over every model of the catalog — local GGUF files, text-only
 * /v1/completions servers and chat APIs alike get tool calling. The client's tools go to the model; the calls it makes
 * come back (`tool_calls`, `function_call` items, `tool_use` blocks) for the client to run: this API runs no tool. The
 * three APIs share one translation core (turn-route.ts): each only reads its request and writes the turn.
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
    if (!catalog.has(id)) throw new ModelNotFoundError(id, catalog.names());
    return c.json({ id, object: "model", created: 0, owned_by: catalog.ownedBy(id) });
  });
  const turns = { catalog, redactor: options.redactor };
  v1.post("/chat/completions", chatCompletionsHandler(turns));
  v1.post("/responses", responsesHandler(turns));
  // Stateless (store is not supported): nothing is kept to fetch, continue or delete.
  v1.on(["GET", "DELETE"], "/responses/:id{.+}", (c) => {
    throw new HttpError(
      404,
      `No response "${c.req.param("id")}": this server keeps no responses (every request is answered as with store: false).`,
      { type: "invalid_request_error", code: "response_not_found" },
    );
  });
  v1.post("/messages", messagesHandler(turns));
  // In the shape of the API the path names: Anthropic's for POST /v1/messages/count_tokens (not offered), say.
  v1.notFound((c) =>
    errorResponse(
      c.req.path,
      // OpenAI's own answer to a path it does not have: 404, invalid_request_error, unknown_url.
      new HttpError(
        404,
        `${c.req.method} ${c.req.path} is not a route of this server's /v1 API; it has ${V1_ROUTES}.`,
        { type: "invalid_request_error", code: "unknown_url" },
      ),
    ),
  );
  return v1;
}
