import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ApprovalPolicy } from "../tools/approval-policy.js";
import { defineTool } from "../tools/define-tool.js";
import type { AnyToolDefinition } from "../tools/tool-definition.js";
import { ToolExecutor } from "../tools/tool-executor.js";
import { ToolRegistry } from "../tools/tool-registry.js";
import { type ClassifyCallsInput, classifyCalls, settlesAtOnce } from "./classify-calls.js";
import type { CollectedCall } from "./collect-model-turn.js";

const add = defineTool({
  name: "add",
  description: "Add",
  inputSchema: z.object({ a: z.number(), b: z.number() }),
  handler: ({ a, b }) => a + b,
});
const remove = defineTool({
  name: "remove",
  description: "Delete a file",
  inputSchema: z.object({ path: z.string() }),
  annotations: { destructiveHint: true },
  handler: () => "gone",
});
const registry = new ToolRegistry();
registry.registerAll([add, remove] as AnyToolDefinition[]);
const executor = new ToolExecutor(registry);

function classify(calls: CollectedCall[], overrides: Partial<ClassifyCallsInput> = {}) {
  return classifyCalls({
    runId: "r",
    step: 1,
    calls,
    budget: 10,
    maxToolCalls: 10,
    tool: (name) => registry.get(name),
    toolNames: () => ["add", "remove"],
    approval: undefined,
    checkArguments: (tool, args) => executor.checkArguments(tool, args),
    dryRun: false,
    observe: (result) => result,
    now: () => "2026-01-01T00:00:00.000Z",
    ...overrides,
  });
}

const call = (name: string, args: Record<string, unknown>, error?: string): CollectedCall => ({
  id: `c_${name}`,
  name,
  arguments: args,
  ...(error ? { error } : {}),
});

describe("classifyCalls", () => {
  it.each<[string, CollectedCall, Partial<ClassifyCallsInput>, string, RegExp | undefined]>([
    ["a valid call with policy always", call("add", { a: 1, b: 2 }), {}, "approved", undefined],
    [
      "an unreadable call",
      call("add", {}, "bad JSON"),
      {},
      "invalid",
      /Could not read the call to add: bad JSON/,
    ],
    ["an unknown tool", call("nope", {}), {}, "invalid", /Unknown tool "nope".*Call one of those instead/],
    ["invalid arguments", call("add", { a: "x" }), {}, "invalid", /Invalid arguments for add/],
    ["a tool that asks", call("remove", { path: "x" }), {}, "pending", undefined],
    [
      "policy never",
      call("add", { a: 1, b: 2 }),
      { approval: () => "never" },
      "denied",
      /approval policy: never/,
    ],
    [
      "over the tool-call budget",
      call("add", { a: 1, b: 2 }),
      { budget: 0 },
      "refused",
      /limit of 10 tool calls/,
    ],
    [
      "a dry run of a tool with side effects",
      call("remove", { path: "x" }),
      { dryRun: true },
      "approved",
      undefined,
    ],
  ])("%s → %s", (_, made, overrides, state, message) => {
    const out = classify([made], overrides);
    expect(out.calls[0]?.state).toBe(state);
    const text = out.calls[0]?.result?.content[0];
    if (message) expect(text?.type === "text" ? text.text : "").toMatch(message);
    else expect(out.calls[0]?.result).toBeUndefined();
  });

  it("keeps the model's order, reports each call, lists what waits and audits automatic decisions", () => {
    const out = classify(
      [call("add", { a: 1, b: 2 }), call("remove", { path: "a" }), call("nope", {}, "cut off")],
      { approval: (c): ApprovalPolicy => (c.name === "remove" ? "ask" : "always") },
    );
    expect(out.calls.map((c) => [c.position, c.name, c.state])).toEqual([
      [0, "add", "approved"],
      [1, "remove", "pending"],
      [2, "nope", "invalid"],
    ]);
    expect(out.events.map((e) => e.type)).toEqual(["call-finished", "call-finished", "call-invalid"]);
    expect(out.pending).toEqual([{ callId: "c_remove", name: "remove", arguments: { path: "a" } }]);
    const auto = classify([call("remove", { path: "a" })], { approval: () => "always" });
    expect(auto.calls[0]?.approval).toMatchObject({ decision: "approved", decidedBy: "policy" });
    expect(auto.audit).toEqual([
      expect.objectContaining({ actor: "policy", action: "approve", callId: "c_remove" }),
    ]);
  });

  it("spends the budget call by call: the calls past it are refused", () => {
    const out = classify([call("add", { a: 1, b: 1 }), call("add", { a: 2, b: 2 })], { budget: 1 });
    expect(out.calls.map((c) => c.state)).toEqual(["approved", "refused"]);
  });
});

describe("settlesAtOnce", () => {
  const base = {
    budget: 1,
    maxToolCalls: 10,
    tool: (name: string) => registry.get(name),
    toolNames: () => ["add", "remove"],
    approval: undefined,
    checkArguments: (tool: AnyToolDefinition, args: Record<string, unknown>) =>
      executor.checkArguments(tool, args),
    dryRun: false,
  };
  it.each<[string, CollectedCall, Partial<typeof base>, boolean]>([
    ["a call that runs", call("add", { a: 1, b: 2 }), {}, true],
    ["a call refused at once (unknown tool)", call("nope", {}), {}, true],
    ["a call refused at once (invalid arguments)", call("add", {}), {}, true],
    ["a call that asks", call("remove", { path: "x" }), {}, false],
    ["a call that asks, in a dry run", call("remove", { path: "x" }), { dryRun: true }, true],
    ["any call with no budget left", call("add", { a: 1, b: 2 }), { budget: 0 }, false],
  ])("%s → %s", (_, made, overrides, expected) => {
    expect(settlesAtOnce({ ...base, ...overrides, call: made })).toBe(expected);
  });
});
