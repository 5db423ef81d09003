import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { ChatModelFunctionCall } from "node-llama-cpp";
import { afterAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/agent/create-agent.js";
import { writeTestModel } from "../../src/models/gguf/make-test-model.js";
import { createLlamaModel } from "../../src/models/llama/index.js";
import { resultToText } from "../../src/protocols/core/render-helpers.js";
import { SqliteStore } from "../../src/store/sqlite-store.js";
import { createBuiltinTools } from "../../src/tools/builtin/index.js";
import { ToolRegistry } from "../../src/tools/tool-registry.js";

const dir = mkdtempSync(path.join(tmpdir(), "toolbridge-llama-approval-"));
const modelPath = path.join(dir, "tiny.gguf");
writeTestModel(modelPath, { seed: 3 });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const registry = new ToolRegistry();
registry.registerAll(
  createBuiltinTools().filter((d) => ["calculator", "roll_dice", "get_time"].includes(d.tool.name)),
);
// Every tool asks, so whatever the random model calls is gated.
const approval = { calculator: "ask", roll_dice: "ask", get_time: "ask" } as const;

describe("native mode: approval abort/resume for real (node-llama-cpp, tiny GGUF, SQLite store)", () => {
  it("aborts on a gated call, persists it as pending, and after approval resumes with the real result in the chat history", async () => {
    const dbPath = path.join(dir, "runs.db");
    const model = createLlamaModel({ modelPath, seed: 5, threads: 1, maxTokens: 128, gpu: false });
    const store = new SqliteStore(dbPath);
    const first = createAgent({ model, tools: registry, store, approval, toolChoice: "required" });
    const started = performance.now();
    const paused = await first.run("Roll 2d6 for me.").result;
    expect(paused.status).toBe("paused");
    expect(paused.stopReason).toBe("awaiting-approval");
    expect(performance.now() - started).toBeLessThan(60_000);
    // The pending call is in the database, not only in memory: read it back through a second store.
    await store.close();
    const reopened = new SqliteStore(dbPath);
    const pending = (await reopened.listToolCalls(paused.runId)).filter((c) => c.state === "pending");
    expect(pending).toHaveLength(1);
    const call = pending[0]!;
    expect(["calculator", "roll_dice", "get_time"]).toContain(call.name);
    // Nothing ran: generation stopped at the call instead of inventing a result.
    expect(call.result).toBeNull();

    // Another agent (as after a restart) on the same store decides and resumes; toolChoice auto lets it answer.
    const second = createAgent({
      model,
      tools: registry,
      store: reopened,
      approval,
      limits: { maxSteps: 2 },
    });
    const decided = await second.approve(paused.runId, call.id);
    expect(decided.ready).toBe(true);
    const resumed = await second.resume(paused.runId).result;
    expect(["finished", "stopped"]).toContain(resumed.status);
    const done = (await reopened.listToolCalls(paused.runId)).find((c) => c.id === call.id)!;
    expect(done.state).toBe("done");
    expect(done.result).not.toBeNull();

    // Generation resumed from a history whose model turn holds the call with its real result.
    const history = model.lastChatHistory ?? [];
    const calls = history.flatMap((item) =>
      item.type === "model"
        ? item.response.filter(
            (r): r is ChatModelFunctionCall => typeof r === "object" && r.type === "functionCall",
          )
        : [],
    );
    expect(calls).toHaveLength(1);
    expect(calls[0]!.name).toBe(call.name);
    expect(calls[0]!.params).toEqual(call.arguments);
    expect(calls[0]!.result).toBe(resultToText(done.result!));
    // The model item that holds the call is the last one: generation continued that same turn.
    expect(history.at(-1)?.type).toBe("model");
    await reopened.close();
  }, 180_000);
});
