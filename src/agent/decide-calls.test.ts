import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { RunRecord, ToolCallRecord } from "../store/store.js";
import { defineTool } from "../tools/define-tool.js";
import type { AnyToolDefinition } from "../tools/tool-definition.js";
import { DecisionError, type DecisionErrorReason } from "./agent-errors.js";
import { type ApprovalDecision, prepareDecisions } from "./decide-calls.js";

const remove = defineTool({
  name: "remove",
  description: "Delete a file",
  inputSchema: z.object({ path: z.string() }),
  annotations: { destructiveHint: true },
  handler: () => "gone",
}) as AnyToolDefinition;

function call(id: string, overrides: Partial<ToolCallRecord> = {}): ToolCallRecord {
  return {
    runId: "run_1",
    id,
    step: 1,
    position: 0,
    name: "remove",
    arguments: { path: "a" },
    state: "pending",
    outcome: null,
    result: null,
    approval: null,
    startedAt: null,
    finishedAt: null,
    durationMs: null,
    ...overrides,
  };
}

const paused = { id: "run_1", status: "paused", stopReason: null } as const satisfies Pick<
  RunRecord,
  "id" | "status" | "stopReason"
>;
const approvedByAlice = call("call_done", {
  state: "approved",
  approval: {
    policy: "ask",
    decision: "approved",
    decidedBy: "alice",
    decidedAt: "2026-11-27T20:00:00.000Z",
    reason: null,
    originalArguments: null,
  },
});
const ranWithoutAsking = call("call_auto", { state: "done", outcome: "ok" });
const calls = [call("call_a"), approvedByAlice, ranWithoutAsking];

function prepare(
  decisions: ApprovalDecision[],
  run: typeof paused | Pick<RunRecord, "id" | "status" | "stopReason"> = paused,
) {
  return prepareDecisions({
    run,
    calls,
    decisions,
    by: "bob",
    tool: (name) => (name === "remove" ? remove : undefined),
    observe: (result) => result,
  });
}

function reasonOf(run: () => unknown): { reason: DecisionErrorReason; message: string } {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(DecisionError);
    return { reason: (error as DecisionError).reason, message: (error as DecisionError).message };
  }
  throw new Error("expected a DecisionError");
}

describe("prepareDecisions: every refusal has a reason and one wording", () => {
  it.each<
    [string, ApprovalDecision[], Pick<RunRecord, "id" | "status" | "stopReason">, DecisionErrorReason, RegExp]
  >([
    [
      "unknown call",
      [{ callId: "call_x", decision: "approve" }],
      paused,
      "unknown-call",
      /has no tool call "call_x". Pending: call_a/,
    ],
    [
      "one call twice in a batch",
      [
        { callId: "call_a", decision: "approve" },
        { callId: "call_a", decision: "deny" },
      ],
      paused,
      "duplicate-call",
      /appears twice in one batch/,
    ],
    [
      "a call decided before",
      [{ callId: "call_done", decision: "deny" }],
      paused,
      "already-decided",
      /call_done \(remove\) was already decided: it was approved by alice at 2026-11-27T20:00:00.000Z/,
    ],
    [
      "a call that never waited",
      [{ callId: "call_auto", decision: "approve" }],
      paused,
      "not-pending",
      /call_auto \(remove\) does not wait for a decision: it is done/,
    ],
    [
      "a run that is over",
      [{ callId: "call_a", decision: "approve" }],
      { id: "run_1", status: "stopped", stopReason: "aborted" },
      "run-over",
      /Run run_1 is stopped \(aborted\); its calls can no longer be decided/,
    ],
    [
      "edited arguments the schema rejects",
      [{ callId: "call_a", decision: "approve", arguments: { path: 7 } }],
      paused,
      "invalid-arguments",
      /edited arguments for call_a \(remove\) are invalid: .*path/,
    ],
  ])("%s", (_, decisions, run, reason, message) => {
    const refused = reasonOf(() => prepare(decisions, run));
    expect(refused.reason).toBe(reason);
    expect(refused.message).toMatch(message);
  });

  it("a call decided before answers with who decided it even when the run is over", () => {
    const refused = reasonOf(() =>
      prepare([{ callId: "call_done", decision: "approve" }], {
        id: "run_1",
        status: "finished",
        stopReason: "final-answer",
      }),
    );
    expect(refused.reason).toBe("already-decided");
  });

  it("a valid batch becomes what the store records, the denial with the model's observation", () => {
    const records = prepare([{ callId: "call_a", decision: "deny", reason: "not that file!" }]);
    expect(records).toMatchObject([
      { callId: "call_a", decision: "denied", by: "bob", reason: "not that file!" },
    ]);
    expect(JSON.stringify(records[0]?.result)).toMatch(
      /The user denied this call to remove: not that file\. It was not run/,
    );
  });
});
