/**
 * The /v1 APIs pass the model's own words on — text, reasoning, call arguments — and every one of them goes through the
 * server's redactor, as runs, their events, the store, traces and the CLI do (redaction-sinks.test.ts). The model here
 * streams each secret in 5-character pieces, so a secret always straddles deltas: only a carry across deltas catches
 * it. One table of surfaces: a new /v1 API is one more row.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LanguageModel, ModelEvent } from "../../src/core/language-model.js";
import { createReplayModel } from "../../src/models/replay-model.js";
import { getProtocol } from "../../src/protocols/protocol-registry.js";
import { ModelCatalog } from "../../src/server/model-catalog.js";
import { type RunningServer, startServer } from "../../src/server/start-server.js";
import { REDACTED } from "../../src/tools/redact-secrets.js";
import { ToolExecutor } from "../../src/tools/tool-executor.js";
import { ToolRegistry } from "../../src/tools/tool-registry.js";

const LITERAL = 'Zq-configured "value" \\ 42';
/** [what the model writes, the part that must never come out]. */
const SECRETS: Array<[string, string]> = [
  ["sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz012345", "AbCdEfGhIjKlMnOpQrStUvWxYz012345"],
  ["sk-proj-AbCdEfGhIjKlMnOpQrStUvWx0123", "AbCdEfGhIjKlMnOpQrStUvWx0123"],
  ["sk-AbCdEfGhIjKlMnOpQrStUvWxYz9876", "AbCdEfGhIjKlMnOpQrStUvWxYz9876"],
  ["ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"],
  ["github_pat_11AbCdEfGh0123456789_AbCdEfGhIjKlMnOpQrSt", "11AbCdEfGh0123456789_AbCdEfGhIjKlMnOpQrSt"],
  ["AKIAABCDEFGHIJKLMNOP", "ABCDEFGHIJKLMNOP"],
  ["xoxb-123456789012-AbCdEfGhIj", "123456789012-AbCdEfGhIj"],
  ["AIzaSyAbCdEfGhIjKlMnOpQrStUvWxYz0123456", "SyAbCdEfGhIjKlMnOpQrStUvWxYz0123456"],
  ["hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567", "AbCdEfGhIjKlMnOpQrStUvWxYz01234567"],
  ["eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.AbCdEfGhIjKlMnOp", "eyJzdWIiOiIxMjM0In0.AbCdEfGhIjKlMnOp"],
  ["Authorization: Bearer abcdefghijklmnop1234", "abcdefghijklmnop1234"],
  ["api_key=Zk3jd93kdlsk39dk", "Zk3jd93kdlsk39dk"],
  ["password: Tr0ub4dor&3xyz", "Tr0ub4dor&3xyz"],
  ["postgres://app:s3cr3tpass@db.internal:5432/prod", "s3cr3tpass"],
  ["https://abcdefghijklmnop1234@github.com/org/repo", "abcdefghijklmnop1234"],
  ["Server=db;User Id=sa;Password=Hx7!kq;Encrypt=true", "Hx7!kq"],
  [
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAzX1\n-----END RSA PRIVATE KEY-----",
    "MIIEowIBAAKCAQEAzX1",
  ],
  [`the configured one: ${LITERAL}`, LITERAL],
];

/** Every secret with a readable marker before it: the markers must all come through (nothing else may vanish). */
const SAID = SECRETS.map(([text], i) => `note${i}: ${text} .`).join("\n");

function pieces(text: string, size = 5): string[] {
  return Array.from({ length: Math.ceil(text.length / size) }, (_, i) =>
    text.slice(i * size, (i + 1) * size),
  );
}

/** Reasoning, text and a call whose arguments stream in pieces, each carrying every secret. */
const leaky: LanguageModel = {
  id: "leaky",
  async *stream(request): AsyncIterable<ModelEvent> {
    for (const text of pieces(SAID)) yield { type: "reasoning-delta", text };
    for (const text of pieces(SAID)) yield { type: "text-delta", text };
    if (request.tools.length > 0) {
      const args = JSON.stringify({ text: SAID });
      yield { type: "call-start", id: "c1", name: "echo" };
      for (const text of pieces(args)) yield { type: "call-args-delta", id: "c1", text };
      yield { type: "call-end", id: "c1", name: "echo", arguments: args };
    }
    yield { type: "finish", reason: request.tools.length > 0 ? "tool-calls" : "stop" };
  },
};

const ECHO = {
  type: "function",
  function: { name: "echo", parameters: { type: "object", properties: { text: { type: "string" } } } },
};

/** One /v1 surface: the raw body it answers for the `leaky` model (with a tool offered), whole or streamed. */
interface Surface {
  name: string;
  body(url: string): Promise<string>;
}

const post = async (url: string, body: object) => {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return text;
};

const RESPONSES_ECHO = { type: "function", ...ECHO.function };
const MESSAGES_ECHO = { name: "echo", input_schema: ECHO.function.parameters };

const SURFACES: Surface[] = [
  {
    name: "chat completions",
    body: (url) =>
      post(`${url}/v1/chat/completions`, {
        model: "leaky",
        messages: [{ role: "user", content: "go" }],
        tools: [ECHO],
      }),
  },
  {
    name: "chat completions, streamed",
    body: (url) =>
      post(`${url}/v1/chat/completions`, {
        model: "leaky",
        messages: [{ role: "user", content: "go" }],
        tools: [ECHO],
        stream: true,
      }),
  },
  ...[false, true].map(
    (stream): Surface => ({
      name: `responses${stream ? ", streamed" : ""}`,
      body: (url) =>
        post(`${url}/v1/responses`, { model: "leaky", input: "go", tools: [RESPONSES_ECHO], stream }),
    }),
  ),
  ...[false, true].map(
    (stream): Surface => ({
      name: `messages${stream ? ", streamed" : ""}`,
      body: (url) =>
        post(`${url}/v1/messages`, {
          model: "leaky",
          max_tokens: 100,
          messages: [{ role: "user", content: "go" }],
          tools: [MESSAGES_ECHO],
          stream,
        }),
    }),
  ),
];

let server: RunningServer;
beforeAll(async () => {
  const registry = new ToolRegistry();
  const models = new ModelCatalog({
    leaky: { create: async () => leaky },
    // A text-protocol model offered no tools: what it writes is the answer, call markup included.
    "text-model": {
      create: async () =>
        createReplayModel(
          [
            {
              text: 'Let me see. <tool_call>\n{"name": "calculator", "arguments": {"expression": "2+2"}}\n</tool_call>',
            },
          ],
          { protocol: getProtocol("hermes"), chunkSize: 3 },
        ),
    },
  });
  server = await startServer({
    registry,
    executor: new ToolExecutor(registry, { redact: { env: {}, values: [LITERAL] } }),
    port: 0,
    openai: { models },
  });
});
afterAll(async () => {
  await server?.close();
});

function forms(secret: string): string[] {
  return [...new Set([secret, JSON.stringify(secret).slice(1, -1)])];
}

describe.each(SURFACES)("/v1 redaction: $name", (surface) => {
  it("no secret comes out of text, reasoning or call arguments, and every word around them does", async () => {
    const body = await surface.body(server.url);
    for (const [, secret] of SECRETS)
      for (const form of forms(secret)) expect(body, `leaked ${JSON.stringify(secret)}`).not.toContain(form);
    expect(body).toContain(REDACTED);
    for (let i = 0; i < SECRETS.length; i++) expect(body).toContain(`note${i}:`);
  });
});

const MARKUP =
  'Let me see. <tool_call>\n{"name": "calculator", "arguments": {"expression": "2+2"}}\n</tool_call>';

describe("/v1 with no tools offered, on a text-protocol model", () => {
  it("responses and messages answer with the text too", async () => {
    const response = JSON.parse(
      await post(`${server.url}/v1/responses`, { model: "text-model", input: "what is 2+2?" }),
    ) as { output: Array<{ type: string; content: Array<{ text: string }> }> };
    expect(response.output.map((o) => o.type)).toEqual(["message"]);
    expect(response.output[0]!.content[0]!.text).toBe(MARKUP);
    const message = JSON.parse(
      await post(`${server.url}/v1/messages`, {
        model: "text-model",
        max_tokens: 50,
        messages: [{ role: "user", content: "what is 2+2?" }],
      }),
    ) as { content: Array<{ type: string; text: string }>; stop_reason: string };
    expect(message.content).toEqual([{ type: "text", text: MARKUP }]);
    expect(message.stop_reason).toBe("end_turn");
  });

  it("the text is the answer, call markup and all: nothing the model wrote vanishes", async () => {
    for (const stream of [false, true]) {
      const body = await post(`${server.url}/v1/chat/completions`, {
        model: "text-model",
        messages: [{ role: "user", content: "what is 2+2?" }],
        stream,
      });
      const content = stream
        ? body
            .split("\n\n")
            .filter((e) => e.startsWith("data: {"))
            .map(
              (e) =>
                (JSON.parse(e.slice(6)) as { choices: [{ delta: { content?: string } }] }).choices[0]?.delta
                  .content ?? "",
            )
            .join("")
        : (JSON.parse(body) as { choices: [{ message: { content: string } }] }).choices[0].message.content;
      expect(content).toBe(
        'Let me see. <tool_call>\n{"name": "calculator", "arguments": {"expression": "2+2"}}\n</tool_call>',
      );
      expect(body).not.toContain('tool_calls":[');
    }
  });
});
