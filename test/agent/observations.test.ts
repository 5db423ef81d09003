import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AgentConfigError } from "../../src/agent/agent-errors.js";
import { createAgent } from "../../src/agent/create-agent.js";
import { createReplayModel } from "../../src/models/replay-model.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { ToolExecutor } from "../../src/tools/tool-executor.js";
import { ToolRegistry } from "../../src/tools/tool-registry.js";
import { runToEnd, texts } from "./helpers.js";

// A value no default pattern knows: only a configured redactor can catch it.
const SECRET = "correct-horse-battery-staple-7781";

function echoRegistry(maxOutputChars?: number) {
  const registry = new ToolRegistry();
  registry.register(
    defineTool({
      name: "echo",
      // "$SECRET" is filled in by the tool, so the secret comes from the tool's output, not the (redacted) arguments.
      description: "Say the text back.",
      inputSchema: z.object({ text: z.string() }),
      annotations: { readOnlyHint: true },
      ...(maxOutputChars ? { maxOutputChars } : {}),
      handler: (args) => args.text.replaceAll("$SECRET", SECRET),
    }),
  );
  return registry;
}

const notes = (text: string | null) => text?.match(/\[output truncated/g)?.length ?? 0;

describe("observations: the executor redacts and cuts once, with the agent's options", () => {
  it("a secret straddling a tool's output cut is redacted by the agent's redactor before the one cut", async () => {
    // The secret starts at 40 and the tool's limit is 45: cut before redaction, its first half would show.
    const text = `${"a".repeat(40)}$SECRET and the rest of the line`;
    const agent = createAgent({
      model: createReplayModel([{ calls: [{ name: "echo", arguments: { text } }] }, { text: "done" }]),
      tools: echoRegistry(45),
      redact: { values: [SECRET], env: {} },
    });
    const { view } = await runToEnd(agent);
    const observation = texts(view)[0] ?? "";
    expect(observation).not.toContain(SECRET.slice(0, 8));
    const redactedLength = text.replace("$SECRET", "[REDACTED]").length;
    expect(observation).toBe(
      `${"a".repeat(40)}\n[output truncated: showing the first 45 of ${redactedLength} characters]`,
    );
    expect(notes(observation)).toBe(1);
  });

  it("maxObservationChars is the executor's limit: a run and a direct call (tools call, MCP) read the same", async () => {
    const text = `${"word ".repeat(30)}$SECRET`;
    const agent = createAgent({
      model: createReplayModel([{ calls: [{ name: "echo", arguments: { text } }] }, { text: "done" }]),
      tools: echoRegistry(),
      redact: { values: [SECRET], env: {} },
      maxObservationChars: 60,
    });
    const { view } = await runToEnd(agent);
    const direct = await agent.executor.call("echo", { text });
    const directText = direct.content.map((b) => (b.type === "text" ? b.text : "")).join("");
    expect(texts(view)[0]).toBe(directText);
    expect(directText).toMatch(/^(word ){12}\n\[output truncated: showing the first 60 of 160 characters\]$/);
  });

  it("a denial's reason goes through the same redactor and limit as a tool's result", async () => {
    const registry = echoRegistry();
    const agent = createAgent({
      model: createReplayModel([{ calls: [{ name: "echo", arguments: { text: "hi" } }] }, { text: "ok" }]),
      tools: registry,
      approval: { echo: "ask" },
      redact: { values: [SECRET], env: {} },
      maxObservationChars: 80,
    });
    const paused = await agent.run("go").result;
    expect(paused.status).toBe("paused");
    const callId = paused.pending[0]?.callId ?? "";
    await agent.deny(paused.runId, callId, { reason: `never send ${SECRET} ${"anywhere ".repeat(20)}` });
    const view = await agent.getRun(paused.runId);
    const observation = texts(view)[0] ?? "";
    expect(observation).not.toContain(SECRET);
    expect(observation).toMatch(/^The user denied this call to echo: never send \[REDACTED\] anywhere/);
    expect(notes(observation)).toBe(1);
  });

  it("the agent's redact or maxObservationChars with a ready-made executor is refused, naming the executor's options", () => {
    const executor = new ToolExecutor(echoRegistry(), { defaultMaxOutputChars: 100 });
    const model = createReplayModel([{ text: "ok" }]);
    expect(() => createAgent({ model, tools: executor, maxObservationChars: 40 })).toThrow(AgentConfigError);
    expect(() => createAgent({ model, tools: executor, maxObservationChars: 40 })).toThrow(
      /set `defaultMaxOutputChars` on that executor/,
    );
    expect(() => createAgent({ model, tools: executor, redact: false })).toThrow(
      /redact would disagree with the ToolExecutor .* set `redact` on that executor/,
    );
    expect(() => createAgent({ model, tools: echoRegistry(), maxObservationChars: 0 })).toThrow(
      /maxObservationChars: .*positive whole number/,
    );
    // Repeating the executor's own settings is no disagreement.
    const quiet = new ToolExecutor(echoRegistry(), { redact: false, defaultMaxOutputChars: 100 });
    expect(createAgent({ model, tools: quiet, redact: false, maxObservationChars: 100 }).executor).toBe(
      quiet,
    );
    // The executor's own pair is what the agent uses.
    const agent = createAgent({ model, tools: executor });
    expect(agent.executor).toBe(executor);
  });
});
