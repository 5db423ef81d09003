import { z } from "zod";
import { type Agent, type AgentOptions, createAgent } from "../../src/agent/create-agent.js";
import type { AgentEvent } from "../../src/agent/events.js";
import { createReplayModel, type ReplayTurn } from "../../src/models/replay-model.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { ToolRegistry } from "../../src/tools/tool-registry.js";

/** A registry of small real tools whose executions are recorded, so tests can check what actually ran. */
export function createTestTools() {
  const executed: Array<{ name: string; args: Record<string, unknown>; at: number }> = [];
  const registry = new ToolRegistry();
  const record = (name: string, args: Record<string, unknown>) =>
    executed.push({ name, args, at: performance.now() });
  registry.register(
    defineTool({
      name: "add",
      description: "Add two numbers.",
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      annotations: { readOnlyHint: true },
      handler: (args) => {
        record("add", args);
        return String(args.a + args.b);
      },
    }),
  );
  registry.register(
    defineTool({
      name: "sleep",
      description: "Wait, then report.",
      inputSchema: z.object({ ms: z.number().int().min(0), label: z.string() }),
      annotations: { readOnlyHint: true },
      handler: async (args, ctx) => {
        record("sleep", args);
        await new Promise((resolve, reject) => {
          const timer = setTimeout(resolve, args.ms);
          ctx.signal.addEventListener("abort", () => {
            clearTimeout(timer);
            reject(ctx.signal.reason);
          });
        });
        return `slept ${args.label}`;
      },
    }),
  );
  registry.register(
    defineTool({
      name: "delete_file",
      description: "Delete a file.",
      inputSchema: z.object({ path: z.string() }),
      annotations: { destructiveHint: true },
      handler: (args) => {
        record("delete_file", args);
        return `deleted ${args.path}`;
      },
    }),
  );
  registry.register(
    defineTool({
      name: "send_email",
      description: "Send an email.",
      inputSchema: z.object({ to: z.string(), body: z.string() }),
      annotations: { openWorldHint: true },
      handler: (args) => {
        record("send_email", args);
        return `sent to ${args.to}`;
      },
    }),
  );
  registry.register(
    defineTool({
      name: "fail",
      description: "Always fails.",
      inputSchema: z.object({}),
      annotations: { readOnlyHint: true },
      handler: () => {
        record("fail", {});
        throw new Error("boom");
      },
    }),
  );
  return { registry, executed };
}

export function agentWith(turns: ReplayTurn[], options: Partial<AgentOptions> = {}) {
  const tools = createTestTools();
  const agent: Agent = createAgent({
    model: createReplayModel(turns),
    tools: tools.registry,
    redact: false,
    ...options,
  });
  return { agent, ...tools };
}

export async function runToEnd(agent: Agent, prompt = "go") {
  const handle = agent.run(prompt);
  const events: AgentEvent[] = [];
  for await (const event of handle) events.push(event);
  return { view: await handle.result, events, runId: handle.runId };
}

export function texts(view: {
  steps: Array<{ calls: Array<{ result: { content: Array<{ type: string; text?: string }> } | null }> }>;
}) {
  return view.steps.flatMap((s) =>
    s.calls.map((c) => c.result?.content.map((b) => b.text ?? "").join("") ?? null),
  );
}
