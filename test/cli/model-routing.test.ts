import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCliAgent } from "../../src/cli/create-cli-agent.js";
import { createCliModel } from "../../src/cli/create-cli-model.js";
import { type ModelFlags, resolveModelSettings } from "../../src/cli/model-options.js";
import { LazyDatabase } from "../../src/cli/open-store.js";
import { SqliteStore } from "../../src/store/sqlite-store.js";

/**
 * A stand-in OpenAI-compatible server on loopback: it records what the CLI's model sends and answers "ok", streamed
 * as SSE — enough to see which routing (native tools or text protocol) and which tool choice reached the wire.
 */
let server: Server;
let baseUrl: string;
const bodies: Array<Record<string, unknown>> = [];

function sse(res: import("node:http").ServerResponse, chunks: unknown[]): void {
  res.writeHead(200, { "content-type": "text/event-stream" });
  for (const chunk of chunks) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
  res.end("data: [DONE]\n\n");
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let text = "";
    req.on("data", (chunk) => {
      text += chunk;
    });
    req.on("end", () => {
      bodies.push(JSON.parse(text) as Record<string, unknown>);
      const base = { id: "x", created: 1, model: "m" };
      if (req.url?.endsWith("/chat/completions")) {
        sse(res, [
          {
            ...base,
            object: "chat.completion.chunk",
            choices: [{ index: 0, delta: { content: "ok" }, finish_reason: null }],
          },
          {
            ...base,
            object: "chat.completion.chunk",
            choices: [{ index: 0, delta: {}, finish_reason: "stop" }],
          },
        ]);
      } else {
        sse(res, [
          { ...base, object: "text_completion", choices: [{ index: 0, text: "ok", finish_reason: null }] },
          { ...base, object: "text_completion", choices: [{ index: 0, text: "", finish_reason: "stop" }] },
        ]);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** What `toolbridge run "hi" <flags>` sends to the server (first request of the run). */
async function firstRequest(flags: ModelFlags): Promise<Record<string, unknown>> {
  bodies.length = 0;
  const model = resolveModelSettings({ flags: { baseUrl, modelName: "m", ...flags }, env: {} });
  if (!model) throw new Error("no model");
  const store = new SqliteStore(":memory:");
  const cli = await createCliAgent(
    { model, allow: ["calculator", "roll_dice"] },
    LazyDatabase.ofSqlite(store),
  );
  try {
    const view = await cli.agent.run("hi").result;
    expect(view.status).toBe("finished");
    return bodies[0] as Record<string, unknown>;
  } finally {
    await cli.close();
    await store.close();
  }
}

const toolNames = (body: Record<string, unknown>) =>
  ((body.tools as Array<{ function: { name: string } }> | undefined) ?? [])
    .map((t) => t.function.name)
    .sort();

describe("routing: native tools where the backend has them, a text protocol otherwise", () => {
  it("sends tools natively to a chat server, with the tool choice mapped to the API parameter", async () => {
    const body = await firstRequest({ toolChoice: "calculator", maxTokens: "77", seed: "5" });
    expect(toolNames(body)).toEqual(["calculator", "roll_dice"]);
    expect(body.tool_choice).toEqual({ type: "function", function: { name: "calculator" } });
    expect(body).toMatchObject({ model: "m", max_tokens: 77, seed: 5 });
  });

  it("puts the catalogue into the prompt instead when the model is routed to a text protocol", async () => {
    const body = await firstRequest({ nativeTools: false, protocol: "hermes" });
    expect(body.tools).toBeUndefined();
    const system = (body.messages as Array<{ role: string; content: string }>)[0];
    expect(system?.role).toBe("system");
    expect(system?.content).toContain("<tool_call>");
    expect(system?.content).toContain("roll_dice");
  });

  it("renders the prompt itself for a text-only /v1/completions server", async () => {
    const body = await firstRequest({ api: "completions", chatTemplate: "chatml", toolChoice: "auto" });
    expect(typeof body.prompt).toBe("string");
    expect(body.prompt as string).toContain("<|im_start|>system");
    expect(body.prompt as string).toContain("calculator");
    expect(body.messages).toBeUndefined();
  });

  it("refuses a tool choice that names a tool the run does not offer", async () => {
    const model = resolveModelSettings({
      flags: { baseUrl, modelName: "m", toolChoice: "no_such_tool" },
      env: {},
    });
    const store = new SqliteStore(":memory:");
    try {
      await expect(
        createCliAgent({ model: model!, allow: ["calculator"] }, LazyDatabase.ofSqlite(store)),
      ).rejects.toThrow(
        /--tool-choice must be auto, required, none or the name of an offered tool \(calculator\); got "no_such_tool"/,
      );
    } finally {
      await store.close();
    }
  });

  it("says per backend whether tools go natively, and honours the per-model override", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "tb-routing-"));
    const turns = path.join(dir, "turns.jsonl");
    writeFileSync(turns, '{"text": "hi"}\n');
    const env = { TB_TEST_ANTHROPIC_KEY: "test-key" };
    const native = async (flags: ModelFlags, extra: Record<string, string> = {}) => {
      const settings = resolveModelSettings({ flags, env: extra });
      return (await createCliModel(settings!, { env: extra })).nativeTools;
    };
    expect(await native({ baseUrl, modelName: "m" })).toBe(true);
    expect(await native({ baseUrl, modelName: "m", protocol: "hermes" })).toBe(false);
    expect(await native({ baseUrl, modelName: "m", protocol: "hermes", nativeTools: true })).toBe(true);
    expect(await native({ baseUrl, api: "completions", chatTemplate: "chatml" })).toBe(false);
    process.env.TB_TEST_ANTHROPIC_KEY = "test-key";
    try {
      const anthropic = { provider: "anthropic" as const, apiKeyEnv: "TB_TEST_ANTHROPIC_KEY" };
      expect((await createCliModel(anthropic, { env })).nativeTools).toBe(true);
      const text = await createCliModel({ ...anthropic, nativeTools: false }, { env });
      expect(text.nativeTools).toBe(false);
      expect(text.model.id).toMatch(/\+hermes$/);
    } finally {
      delete process.env.TB_TEST_ANTHROPIC_KEY;
    }
    // The replay model reads its text turns with the protocol, as a text-only backend reads its output (when a tool is
    // offered: with none, the text is the answer).
    writeFileSync(
      turns,
      `${JSON.stringify({ text: '<tool_call>{"name": "calc", "arguments": {"x": 1}}</tool_call>' })}\n`,
    );
    const replay = await createCliModel({ provider: "replay", path: turns, protocol: "hermes" });
    const events = [];
    for await (const event of replay.model.stream({
      messages: [{ role: "user", content: "go" }],
      tools: [{ name: "calc", inputSchema: { type: "object" } }],
      toolChoice: "auto",
      signal: new AbortController().signal,
    }))
      events.push(event);
    expect(events).toContainEqual(
      expect.objectContaining({ type: "call-end", name: "calc", arguments: { x: 1 } }),
    );
  });
});
