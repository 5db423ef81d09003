import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createReplayModel } from "../../../src/models/replay-model.js";
import { ModelCatalog } from "../../../src/server/model-catalog.js";
import { type RunningServer, startServer } from "../../../src/server/start-server.js";
import { ToolExecutor } from "../../../src/tools/tool-executor.js";
import { ToolRegistry } from "../../../src/tools/tool-registry.js";

// Anthropic's clients send the key as `x-api-key` (ANTHROPIC_API_KEY); on /v1/messages it is the server's token,
// checked by the same middleware as the bearer header, wrong ones counted by the same sign-in limit.
const TOKEN = "the-right-token-0123456789";
let server: RunningServer;
beforeAll(async () => {
  const registry = new ToolRegistry();
  server = await startServer({
    registry,
    executor: new ToolExecutor(registry),
    port: 0,
    token: TOKEN,
    signInLimit: { maxFailures: 3 },
    openai: { models: new ModelCatalog({ m: { create: async () => createReplayModel([{ text: "Hi." }]) } }) },
  });
});
afterAll(async () => {
  await server?.close();
});

const message = (headers: Record<string, string>, path = "/v1/messages") =>
  fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ model: "m", max_tokens: 5, messages: [{ role: "user", content: "hi" }] }),
  });

describe("x-api-key on /v1/messages", () => {
  it("the Anthropic client with apiKey = the token is answered; with authToken (Bearer) too", async () => {
    for (const client of [
      new Anthropic({ baseURL: server.url, apiKey: TOKEN, maxRetries: 0 }),
      new Anthropic({ baseURL: server.url, apiKey: null, authToken: TOKEN, maxRetries: 0 }),
    ]) {
      const reply = await client.messages.create({
        model: "m",
        max_tokens: 5,
        messages: [{ role: "user", content: "hi" }],
      });
      expect(reply.content).toEqual([{ type: "text", text: "Hi." }]);
    }
  });

  it("a wrong key is 401 in Anthropic's shape; x-api-key is no credential elsewhere; wrong keys hit the sign-in limit", async () => {
    const wrong = await message({ "x-api-key": "guess-1" });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({
      type: "error",
      error: { type: "authentication_error", message: expect.stringMatching(/x-api-key is wrong/) },
    });
    const none = await message({});
    expect(none.status).toBe(401);
    expect(((await none.json()) as { error: { message: string } }).error.message).toMatch(/x-api-key/);
    // On the OpenAI routes the token comes as a bearer header only.
    const chat = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": TOKEN },
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(chat.status).toBe(401);
    // Two more wrong keys reach the limit of 3: now even the right key waits.
    expect((await message({ "x-api-key": "guess-2" })).status).toBe(401);
    expect((await message({ "x-api-key": "guess-3" })).status).toBe(401);
    const limited = await message({ "x-api-key": TOKEN });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toMatch(/^\d+$/);
  });
});
