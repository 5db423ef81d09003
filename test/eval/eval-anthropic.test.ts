import { afterAll, describe, expect, it } from "vitest";
import { loadBfclCategory } from "../../src/eval/bfcl-dataset.js";
import { runEval } from "../../src/eval/run-eval.js";
import { AnthropicMessagesModel } from "../../src/models/anthropic/anthropic-messages-model.js";
import { type ReplayServer, startSseReplayServer } from "../models/helpers/sse-replay-server.js";

// The Anthropic backend through the real @anthropic-ai/sdk client, a recorded stream at the edge of the paid API: the
// entry's dotted function is offered under a name the API accepts, and the two calls, in the other order than the
// answer's, are mapped back and paired.
let server: ReplayServer | undefined;
afterAll(async () => {
  await server?.close();
});

describe("toolbridge eval on the Anthropic backend", () => {
  it("scores a parallel entry answered with tool_use blocks", async () => {
    server = await startSseReplayServer(["anthropic-bfcl-parallel.sse"]);
    const model = new AnthropicMessagesModel({
      model: "claude-haiku-4-5",
      baseURL: server.origin,
      apiKey: "sk-ant-test",
    });
    const entry = loadBfclCategory("parallel").find((c) => c.entry.id === "parallel_152")!;
    const [result] = await runEval({
      model,
      cases: [entry],
      settings: { reask: 0, repair: true, timeoutMs: 10_000, temperature: 0 },
      concurrency: 1,
    });
    expect(result).toMatchObject({ passed: true, callsMade: 2, callsSchemaValid: 2, inputTokens: 512 });
    expect(result!.calls.map((c) => c.name)).toEqual(["math.power", "math.power"]);
    const body = server.requests[0]!.body as { tools: Array<{ name: string }>; tool_choice?: unknown };
    expect(body.tools.map((t) => t.name)).toEqual(["math_power"]);
  });
});
