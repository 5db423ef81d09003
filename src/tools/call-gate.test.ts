import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ApprovalPolicy } from "./approval-policy.js";
import { type CallerWord, CallGate, executeOptionsFor, gateCall } from "./call-gate.js";
import { defineTool } from "./define-tool.js";
import type { AnyToolDefinition } from "./tool-definition.js";
import { ToolRegistry } from "./tool-registry.js";

const readOnly = defineTool({
  name: "look",
  description: "Read something",
  inputSchema: z.object({}),
  annotations: { readOnlyHint: true },
  handler: () => "seen",
}) as AnyToolDefinition;
const destructive = defineTool({
  name: "wipe",
  description: "Delete something",
  inputSchema: z.object({}),
  annotations: { destructiveHint: true },
  handler: () => "gone",
}) as AnyToolDefinition;

type Expected = "run" | "ask" | `refuse:${string}`;
const verdict = (answer: ReturnType<typeof gateCall>): Expected =>
  answer.action === "refuse" ? `refuse:${answer.reason}` : answer.action;

describe("gateCall", () => {
  // policy (undefined: the tool's annotations decide) × what the caller brings → the answer, for both kinds of tool.
  const cases: Array<[AnyToolDefinition, ApprovalPolicy | undefined, CallerWord, Expected]> = [
    [readOnly, undefined, {}, "run"],
    [destructive, undefined, {}, "ask"],
    [destructive, undefined, { decision: "approved" }, "run"],
    [destructive, undefined, { decision: "denied" }, "refuse:denied"],
    [destructive, undefined, { dryRun: true }, "run"],
    // A dry run needs nobody's word, read-only tool or not: nothing of it runs (see executeOptionsFor).
    [readOnly, "ask", { dryRun: true }, "run"],
    [destructive, "always", {}, "run"],
    [readOnly, "always", { decision: "denied" }, "refuse:denied"],
    [readOnly, "never", {}, "refuse:never"],
    [readOnly, "never", { decision: "approved" }, "refuse:never"],
    [destructive, "never", { dryRun: true, decision: "approved" }, "refuse:never"],
  ];
  it.each(cases.map(([tool, ...rest]) => [tool.tool.name, tool, ...rest] as const))(
    "%s with policy %s, caller %j → %s",
    (_name, tool, policy, caller, expected) => {
      const answer = gateCall({
        name: tool.tool.name,
        arguments: {},
        tool,
        approval: policy === undefined ? undefined : { [tool.tool.name]: policy },
        caller,
      });
      expect(verdict(answer)).toBe(expected);
      if (answer.action !== "run") expect(answer.message).toMatch(/nothing ran/);
    },
  );

  it("refuses an unknown tool (naming the offered ones) and a switched-off one before any policy", () => {
    const unknown = gateCall({ name: "nope", arguments: {}, tool: undefined, toolNames: () => ["look"] });
    expect(unknown).toMatchObject({ action: "refuse", reason: "unknown" });
    expect(unknown.action === "refuse" && unknown.message).toBe(
      'Unknown tool "nope". Available tools: look.',
    );
    const off = gateCall({
      name: "look",
      arguments: {},
      tool: readOnly,
      enabled: false,
      approval: { look: "always" },
      caller: { decision: "approved" },
    });
    expect(off).toMatchObject({ action: "refuse", reason: "switched-off" });
  });

  it("says why a tool that needs approval runs without a question, and nothing for one that needs none", () => {
    const run = (tool: AnyToolDefinition, caller: CallerWord, policy?: ApprovalPolicy) =>
      gateCall({
        name: tool.tool.name,
        arguments: {},
        tool,
        approval: policy ? { [tool.tool.name]: policy } : undefined,
        caller,
      });
    expect(run(destructive, {}, "always")).toMatchObject({ action: "run", approvedBy: "policy" });
    expect(run(destructive, { decision: "approved" })).toMatchObject({ approvedBy: "person" });
    expect(run(destructive, { dryRun: true })).toMatchObject({ approvedBy: "dry-run" });
    expect(run(readOnly, {})).toMatchObject({ action: "run", approvedBy: undefined });
  });

  it("has a dry run's unapproved call report what it would do, read-only tool or not; an approved one runs as usual", () => {
    const ask = { look: "ask" as const };
    const dry = gateCall({
      name: "look",
      arguments: {},
      tool: readOnly,
      approval: ask,
      caller: { dryRun: true },
    });
    expect(dry.action === "run" && executeOptionsFor(dry, true)).toEqual({
      dryRun: true,
      describeInstead: true,
    });
    const confirmed = gateCall({
      name: "look",
      arguments: {},
      tool: readOnly,
      approval: ask,
      caller: { dryRun: true, decision: "approved" },
    });
    expect(confirmed.action === "run" && executeOptionsFor(confirmed, true)).toEqual({ dryRun: true });
  });

  it("asks a function policy with the call's arguments", () => {
    const answer = gateCall({
      name: "wipe",
      arguments: { path: "/tmp/x" },
      tool: destructive,
      approval: (call) => (String(call.arguments.path).startsWith("/tmp/") ? "always" : undefined),
    });
    expect(answer).toMatchObject({ action: "run", policy: "always" });
  });
});

describe("CallGate", () => {
  it("reads the registry's switched-off state at every call, and offers only what it would not refuse", () => {
    const registry = new ToolRegistry();
    registry.registerAll([readOnly, destructive]);
    const policies: Record<string, ApprovalPolicy> = {};
    const gate = new CallGate(registry, (call) => policies[call.name]);
    expect(gate.check({ name: "look" })).toMatchObject({ action: "run" });
    expect(gate.offers(destructive)).toBe(true);

    registry.setEnabled((name) => name !== "look");
    expect(gate.check({ name: "look" })).toMatchObject({ action: "refuse", reason: "switched-off" });
    expect(gate.offers(readOnly)).toBe(false);

    policies.wipe = "never";
    expect(gate.check({ name: "wipe" }, { decision: "approved" })).toMatchObject({ reason: "never" });
    expect(gate.offers(destructive)).toBe(false);
    expect(gate.check({ name: "missing" })).toMatchObject({ action: "refuse", reason: "unknown" });
  });
});
