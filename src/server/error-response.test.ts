import { describe, expect, it } from "vitest";
import { RunNotFoundError } from "../agent/agent-errors.js";
import { ToolbridgeError } from "../core/toolbridge-error.js";
import { errorResponse, wsErrorMessage } from "./error-response.js";
import { badRequest, type ErrorBody, HttpError } from "./http-error.js";
import { ModelBusyError } from "./model-catalog.js";

describe("errorResponse: one error, the shape of each surface", () => {
  const refusal = badRequest("`limit` must be a whole number.", "limit", "invalid_limit");

  it("writes OpenAI's body on /api, /v1 and any other path", async () => {
    for (const path of ["/api/runs", "/v1/chat/completions", "/v1/responses", "/"]) {
      const response = errorResponse(path, refusal);
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({
        error: {
          message: "`limit` must be a whole number.",
          type: "invalid_request_error",
          param: "limit",
          code: "invalid_limit",
        },
      });
    }
  });

  it("writes Anthropic's body on /v1/messages, a full queue as its 529 with Retry-After", async () => {
    const response = errorResponse("/v1/messages", refusal);
    expect(await response.json()).toEqual({
      type: "error",
      error: { type: "invalid_request_error", message: "`limit` must be a whole number." },
    });
    const busy = errorResponse("/v1/messages", new ModelBusyError("Every slot is busy."));
    expect(busy.status).toBe(529);
    expect(busy.headers.get("retry-after")).toBe("1");
    expect(await busy.json()).toMatchObject({ error: { type: "overloaded_error" } });
  });

  it("writes a JSON-RPC error on /mcp (the guards' refusals), keeping the response's headers", async () => {
    const response = errorResponse(
      "/mcp",
      new HttpError(401, "Unauthorized.", { headers: { "www-authenticate": "Bearer" } }),
    );
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toBe("Bearer");
    expect(await response.json()).toEqual({
      jsonrpc: "2.0",
      error: { code: -32001, message: "Unauthorized." },
      id: null,
    });
  });

  it("on /ws: the same body with its status beside it, and the request's id", () => {
    expect(wsErrorMessage(7, refusal)).toEqual({ type: "error", id: 7, status: 400, ...refusal.body() });
    expect(wsErrorMessage(undefined, refusal)).not.toHaveProperty("id");
  });

  it("maps what the rooms below throw, and hides what nobody meant to throw", async () => {
    const notFound = (await errorResponse(
      "/api/runs/run_x",
      new RunNotFoundError("run_x"),
    ).json()) as ErrorBody;
    expect(notFound.error).toMatchObject({ type: "not_found_error", code: "run_not_found" });
    // An HTTP client lists runs over HTTP, not with the CLI.
    expect(notFound.error.message).not.toMatch(/toolbridge runs list|--db/);
    expect(notFound.error.message).toContain("GET /api/runs");

    class ModelLoadError extends ToolbridgeError {
      override name = "ModelLoadError";
    }
    const known = errorResponse("/api/runs", new ModelLoadError("Cannot load x.gguf: no such file."));
    expect(known.status).toBe(500);
    expect(await known.json()).toMatchObject({
      error: { message: "Cannot load x.gguf: no such file.", type: "server_error", code: "model_load_error" },
    });

    const stderr = process.stderr.write;
    const logged: string[] = [];
    process.stderr.write = ((chunk: string) => {
      logged.push(chunk);
      return true;
    }) as typeof process.stderr.write;
    try {
      const bug = (await errorResponse(
        "/api/runs",
        new TypeError("x is undefined at /srv/secret.ts"),
      ).json()) as ErrorBody;
      expect(bug.error).toEqual({
        message: "Internal error; see the server's log.",
        type: "server_error",
        param: null,
        code: "internal_error",
      });
    } finally {
      process.stderr.write = stderr;
    }
    expect(logged.join("")).toContain("x is undefined");
  });
});
