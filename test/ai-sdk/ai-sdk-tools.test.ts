/**
 * `toAiSdkTools`: a registry — a built-in tool and a tool of a mounted MCP server (server-everything from npm) — as the
 * AI SDK's `ToolSet`, run by `generateText` through toolbridge's executor, and the approval policy as the SDK's own
 * approval: an `ask` tool's call is an approval request and runs once approved, `never` and an unapproved call do not
 * run however the SDK is set up. On `ai` 6 and 7 (test/ai-sdk-v7).
 */
import { createRequire } from "node:module";
import path from "node:path";
import type { LanguageModelV3CallOptions } from "@ai-sdk/provider";
import { generateText, type ModelMessage, stepCountIs, streamText, type ToolSet } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toAiSdkToolApproval, toAiSdkTools } from "../../src/ai-sdk/index.js";
import {
  type MountedMcpServers,
  mountMcpServers,
  parseMcpServersConfig,
} from "../../src/mcp/mount-mcp-servers.js";
import { createCalculatorTool } from "../../src/tools/builtin/calculator.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { ToolRegistry } from "../../src/tools/tool-registry.js";
import { AI_SDK_MAJOR, scriptedModel } from "./helpers/scripted-model.js";

const require = createRequire(import.meta.url);
const EVERYTHING = path.join(
  path.dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist/index.js",
);

/** The tool results the model was sent in a call, as `{toolName: output}`. */
function resultsSent(call: LanguageModelV3CallOptions | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const message of call?.prompt ?? [])
    if (message.role === "tool")
      for (const part of message.content) if (part.type === "tool-result") out[part.toolName] = part.output;
  return out;
}

let registry: ToolRegistry;
let mounted: MountedMcpServers;
const notes: string[] = [];

beforeAll(async () => {
  registry = new ToolRegistry();
  registry.register(createCalculatorTool());
  registry.register(
    defineTool({
      name: "save_note",
      description: "Saves a note",
      inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
      annotations: { destructiveHint: false, readOnlyHint: false },
      handler: ({ text }: { text: string }) => {
        notes.push(text);
        return `saved "${text}"`;
      },
    }),
  );
  registry.register(
    defineTool({
      name: "read_secret",
      description: "Reads the deploy key",
      inputSchema: { type: "object", properties: {} },
      annotations: { readOnlyHint: true },
      handler: () => "key: ghp_0123456789abcdefghijABCDEFGHIJ012345",
    }),
  );
  mounted = await mountMcpServers(
    registry,
    parseMcpServersConfig({ everything: { command: process.execPath, args: [EVERYTHING] } }),
  );
});
afterAll(async () => {
  await mounted?.close();
});

describe(`toAiSdkTools on ai ${AI_SDK_MAJOR}`, () => {
  it("runs a built-in tool and a mounted MCP tool in one generateText, and feeds their results back", async () => {
    const tools = toAiSdkTools(registry);
    expect(Object.keys(tools)).toEqual(
      expect.arrayContaining(["calculator", "everything.echo", "save_note"]),
    );
    const scripted = scriptedModel([
      {
        calls: [
          { toolName: "calculator", input: { expression: "15% of 47.50" } },
          { toolName: "everything.echo", input: { message: "hello over MCP" } },
        ],
      },
      "7.125, and the server said hello.",
    ]);
    const result = await generateText({
      model: scripted.model,
      tools,
      prompt: "What is 15% of 47.50? And say hello.",
      stopWhen: stepCountIs(3),
    });
    const results = Object.fromEntries(
      (result.steps[0]?.toolResults ?? []).map((r) => [r.toolName, r.output as { content: unknown[] }]),
    );
    expect(results.calculator?.content).toEqual([{ type: "text", text: "7.125" }]);
    expect(JSON.stringify(results["everything.echo"]?.content)).toContain("hello over MCP");
    // The model reads each result as text (toModelOutput), and the turn after it is the answer.
    const sent = resultsSent(scripted.calls[1]);
    expect(sent.calculator).toEqual({ type: "text", value: "7.125" });
    expect(JSON.stringify(sent["everything.echo"])).toContain("hello over MCP");
    expect(result.text).toBe("7.125, and the server said hello.");
  });

  it("carries MCP metadata where the SDK's MCP client puts it", () => {
    const tools = toAiSdkTools(registry);
    const echo = tools["everything.echo"] as {
      type?: string;
      description?: string;
      metadata?: Record<string, unknown>;
    };
    expect(echo.type).toBe("dynamic");
    expect(echo.description).toBe(registry.get("everything.echo")?.tool.description);
    expect(echo.metadata).toMatchObject({
      clientName: "toolbridge",
      toolName: "everything.echo",
      server: "everything",
    });
    const calc = tools.calculator as { metadata?: Record<string, unknown> };
    expect(calc.metadata?.annotations).toEqual(
      JSON.parse(JSON.stringify(registry.get("calculator")?.tool.annotations)),
    );
  });

  it("checks input with the executor's validator: an invalid call is an error the model reads, nothing runs", async () => {
    const scripted = scriptedModel([{ calls: [{ toolName: "save_note", input: { txt: 5 } }] }, "Sorry."]);
    const before = notes.length;
    const result = await generateText({
      model: scripted.model,
      tools: toAiSdkTools(registry, { approval: { save_note: "always" } }),
      prompt: "Save 'x'.",
      stopWhen: stepCountIs(2),
    });
    expect(notes.length).toBe(before);
    const error = result.steps[0]?.content.find((p) => p.type === "tool-error") as
      | { error?: unknown }
      | undefined;
    expect(String(error?.error)).toContain("`text`");
  });

  it("redacts what a tool returns before the SDK or the model sees it", async () => {
    const scripted = scriptedModel([{ calls: [{ toolName: "read_secret", input: {} }] }, "Done."]);
    const result = await generateText({
      model: scripted.model,
      tools: toAiSdkTools(registry),
      prompt: "Read it.",
      stopWhen: stepCountIs(2),
    });
    const sent = JSON.stringify(resultsSent(scripted.calls[1]));
    expect(sent).toContain("[REDACTED]");
    expect(sent).not.toContain("ghp_0123456789");
    expect(JSON.stringify(result.steps[0]?.toolResults)).not.toContain("ghp_0123456789");
  });

  it("keeps cooldowns across sets made per request: the registry's tools share one executor", async () => {
    const limited = new ToolRegistry();
    let runs = 0;
    limited.register(
      defineTool({
        name: "ping",
        description: "Pings",
        inputSchema: { type: "object", properties: {} },
        annotations: { readOnlyHint: true },
        cooldownMs: 60_000,
        handler: () => {
          runs += 1;
          return "pong";
        },
      }),
    );
    const call = (tools: ToolSet) => {
      const execute = tools.ping?.execute as (
        input: unknown,
        options: object,
      ) => Promise<{ isError?: boolean }>;
      return execute({}, { toolCallId: `c${runs}`, messages: [] });
    };
    expect((await call(toAiSdkTools(limited, { userId: "alice" }))).isError).toBeFalsy();
    const again = await call(toAiSdkTools(limited, { userId: "alice" }));
    expect(again.isError).toBe(true);
    expect(JSON.stringify(again)).toContain("cooling down");
    expect(runs).toBe(1);
  });

  describe('an "ask" tool', () => {
    const ask = { save_note: "ask" } as const;

    it("produces the SDK's approval request instead of running, and runs after an approving response", async () => {
      const scripted = scriptedModel([
        { calls: [{ toolName: "save_note", input: { text: "buy milk" } }] },
        "Saved.",
      ]);
      const tools = toAiSdkTools(registry, { approval: ask });
      const before = notes.length;
      const messages: ModelMessage[] = [{ role: "user", content: "Note: buy milk." }];
      const first = await generateText({ model: scripted.model, tools, messages, stopWhen: stepCountIs(3) });
      expect(notes.length).toBe(before);
      const request = first.content.find((p) => p.type === "tool-approval-request") as
        | { approvalId: string; toolCall: { toolName: string; input: unknown } }
        | undefined;
      expect(request?.toolCall).toMatchObject({ toolName: "save_note", input: { text: "buy milk" } });
      expect(scripted.calls).toHaveLength(1);

      messages.push(...first.response.messages, {
        role: "tool",
        content: [{ type: "tool-approval-response", approvalId: request?.approvalId ?? "", approved: true }],
      });
      const second = await generateText({ model: scripted.model, tools, messages, stopWhen: stepCountIs(3) });
      expect(notes.slice(before)).toEqual(["buy milk"]);
      expect(resultsSent(scripted.calls[1]).save_note).toEqual({ type: "text", value: 'saved "buy milk"' });
      expect(second.text).toBe("Saved.");
    });

    it("streamText: the approval request streams, and a denial runs nothing and tells the model", async () => {
      const scripted = scriptedModel([
        { calls: [{ toolName: "save_note", input: { text: "x" } }] },
        "Understood.",
      ]);
      const tools = toAiSdkTools(registry, { approval: ask });
      const before = notes.length;
      const messages: ModelMessage[] = [{ role: "user", content: "Note x." }];
      const first = streamText({ model: scripted.model, tools, messages });
      const parts: Array<{ type: string; approvalId?: string }> = [];
      for await (const part of first.fullStream) parts.push(part as { type: string; approvalId?: string });
      const request = parts.find((p) => p.type === "tool-approval-request");
      expect(request).toBeDefined();
      messages.push(...(await first.response).messages, {
        role: "tool",
        content: [
          {
            type: "tool-approval-response",
            approvalId: request?.approvalId ?? "",
            approved: false,
            reason: "not now",
          },
        ],
      });
      const second = streamText({ model: scripted.model, tools, messages });
      expect(await second.text).toBe("Understood.");
      expect(notes.length).toBe(before);
      expect(JSON.stringify(resultsSent(scripted.calls[1]).save_note)).toContain("not now");
    });

    it("does not run when the SDK is set up to skip the approval (tool-level needsApproval taken off)", async () => {
      const scripted = scriptedModel([
        { calls: [{ toolName: "save_note", input: { text: "sneaky" } }] },
        "Ok.",
      ]);
      const tools = toAiSdkTools(registry, { approval: ask });
      const bypass: ToolSet = {
        ...tools,
        save_note: { ...tools.save_note, needsApproval: false } as ToolSet[string],
      };
      const before = notes.length;
      await generateText({ model: scripted.model, tools: bypass, prompt: "Note.", stopWhen: stepCountIs(2) });
      expect(notes.length).toBe(before);
      expect(JSON.stringify(resultsSent(scripted.calls[1]).save_note)).toContain("needs a person's approval");
    });

    it("runs only with an approval of that very call: another call's, a refused or a made-up one do not count", async () => {
      const tools = toAiSdkTools(registry, { approval: ask });
      const execute = tools.save_note?.execute as (
        input: unknown,
        options: object,
      ) => Promise<{ isError?: boolean }>;
      const request = (toolCallId: string, approvalId: string) => ({
        role: "assistant" as const,
        content: [
          { type: "tool-call" as const, toolCallId, toolName: "save_note", input: { text: "x" } },
          { type: "tool-approval-request" as const, approvalId, toolCallId },
        ],
      });
      const answer = (approvalId: string, approved: boolean) => ({
        role: "tool" as const,
        content: [{ type: "tool-approval-response" as const, approvalId, approved }],
      });
      const before = notes.length;
      const attempts: ModelMessage[][] = [
        [],
        [request("other", "a1"), answer("a1", true)], // approves another call
        [request("c1", "a1"), answer("a1", false)], // refused
        [request("c1", "a1"), answer("a2", true)], // an answer to no request of this call
        [answer("a1", true)], // an answer without the request
      ];
      for (const messages of attempts) {
        const result = await execute({ text: "x" }, { toolCallId: "c1", messages });
        expect(result.isError).toBe(true);
      }
      expect(notes.length).toBe(before);
      const approved = await execute(
        { text: "x" },
        { toolCallId: "c1", messages: [request("c1", "a1"), answer("a1", true)] },
      );
      expect(approved.isError).toBeFalsy();
      expect(notes.length).toBe(before + 1);
    });

    it("needs no approval in a dry run, which reports what it would do and changes nothing", async () => {
      const scripted = scriptedModel([{ calls: [{ toolName: "save_note", input: { text: "dry" } }] }, "Ok."]);
      const before = notes.length;
      await generateText({
        model: scripted.model,
        tools: toAiSdkTools(registry, { approval: ask, dryRun: true }),
        prompt: "Note.",
        stopWhen: stepCountIs(2),
      });
      expect(notes.length).toBe(before);
      expect(JSON.stringify(resultsSent(scripted.calls[1]).save_note)).toContain("[dry run]");
    });
  });

  it('a "never" tool does not run, and the model is told it is not allowed', async () => {
    const scripted = scriptedModel([{ calls: [{ toolName: "save_note", input: { text: "no" } }] }, "Ok."]);
    const before = notes.length;
    await generateText({
      model: scripted.model,
      tools: toAiSdkTools(registry, { approval: { save_note: "never" } }),
      prompt: "Note.",
      stopWhen: stepCountIs(2),
    });
    expect(notes.length).toBe(before);
    expect(resultsSent(scripted.calls[1]).save_note).toEqual({
      type: "error-text",
      value: "save_note is not allowed here (approval policy: never); it was not run.",
    });
  });

  it.runIf(AI_SDK_MAJOR === 7)(
    "ai 7's toolApproval from toAiSdkToolApproval: never is the SDK's denial, ask its request",
    async () => {
      const tools = toAiSdkTools(registry, { approval: { save_note: "never", calculator: "ask" } });
      const scripted = scriptedModel([
        {
          calls: [
            { toolName: "save_note", input: { text: "no" } },
            { toolName: "calculator", input: { expression: "1+1" } },
          ],
        },
        "Ok.",
      ]);
      const before = notes.length;
      const result = await generateText({
        model: scripted.model,
        tools,
        prompt: "Note, then add.",
        stopWhen: stepCountIs(2),
        ...({ toolApproval: toAiSdkToolApproval(tools) } as object),
      });
      expect(notes.length).toBe(before);
      const requests = result.content.filter((p) => p.type === "tool-approval-request") as unknown as Array<{
        toolCall: { toolName: string };
        isAutomatic?: boolean;
      }>;
      // The denial is the SDK's own (an automatic request answered "no"); the calculator waits for a person.
      expect(requests.map((r) => [r.toolCall.toolName, r.isAutomatic === true])).toEqual([
        ["save_note", true],
        ["calculator", false],
      ]);
    },
  );

  it("toAiSdkToolApproval gives ai 7's toolApproval the same policy (ask → user-approval, never → denied)", () => {
    const tools = toAiSdkTools(registry, { approval: { save_note: "ask", calculator: "never" } });
    const approval = toAiSdkToolApproval({
      ...tools,
      other: { inputSchema: {} } as unknown as ToolSet[string],
    });
    expect(approval.save_note?.({ text: "x" })).toBe("user-approval");
    expect(approval.calculator?.({ expression: "1" })).toEqual({
      type: "denied",
      reason: "calculator is not allowed here (approval policy: never).",
    });
    expect(approval["everything.echo"]?.({ message: "x" })).toBe("not-applicable");
    expect(approval.other).toBeUndefined();
  });
});
