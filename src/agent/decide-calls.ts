import type { CallToolResult } from "@modelcontextprotocol/server";
import type { CallDecision, RunRecord, ToolCallRecord } from "../store/store.js";
import { errorResult } from "../tools/normalize-tool-result.js";
import type { AnyToolDefinition } from "../tools/tool-definition.js";
import { validateToolInput } from "../tools/validate-tool-input.js";
import { DecisionError } from "./agent-errors.js";

export type ApprovalDecision =
  | { callId: string; decision: "approve"; arguments?: Record<string, unknown> }
  | { callId: string; decision: "deny"; reason?: string };

/**
 * Check a batch of decisions against the run and its calls and turn them into what the store records — all or none:
 * the one place that says whether a decision can be accepted (the agent, the CLI and every API surface get their
 * answer from here). An unknown call, one decided twice in the batch, one not waiting for a decision (naming who
 * decided it and when), a run that is over, or edited arguments the tool's schema rejects throw a DecisionError with
 * its reason, and nothing is recorded. A denial carries the observation the model sees.
 */
export function prepareDecisions(input: {
  run: Pick<RunRecord, "id" | "status" | "stopReason">;
  calls: readonly ToolCallRecord[];
  decisions: readonly ApprovalDecision[];
  by: string;
  tool: (name: string) => AnyToolDefinition | undefined;
  observe: (result: CallToolResult) => CallToolResult;
}): CallDecision[] {
  const { run, calls, by } = input;
  const runId = run.id;
  const seen = new Set<string>();
  const checked = input.decisions.map((d) => {
    const call = calls.find((c) => c.id === d.callId);
    if (!call)
      throw new DecisionError(
        "unknown-call",
        `Run ${runId} has no tool call "${d.callId}". Pending: ${pendingIds(calls)}.`,
      );
    if (seen.has(d.callId))
      throw new DecisionError(
        "duplicate-call",
        `Tool call ${d.callId} appears twice in one batch; decide it once.`,
      );
    seen.add(d.callId);
    if (call.state !== "pending") throw notPending(call);
    return { d, call };
  });
  // Checked after the calls, so that a call decided before still answers with who decided it.
  if (run.status === "finished" || run.status === "stopped") {
    throw new DecisionError(
      "run-over",
      `Run ${runId} is ${run.status} (${run.stopReason}); its calls can no longer be decided.`,
    );
  }
  return checked.map(({ d, call }) => {
    if (d.decision === "deny") {
      const reason = d.reason?.trim() ? d.reason.trim() : undefined;
      const text = `The user denied this call to ${call.name}${reason ? `: ${reason.replace(/[.!?]+$/, "")}.` : "."} It was not run.`;
      return {
        callId: d.callId,
        decision: "denied" as const,
        by,
        ...(reason ? { reason } : {}),
        result: input.observe(errorResult(text)),
      };
    }
    if (d.arguments !== undefined) {
      const tool = input.tool(call.name);
      if (!tool)
        throw new DecisionError(
          "tool-unavailable",
          `Tool ${call.name} is no longer available; deny call ${d.callId} instead.`,
        );
      const check = validateToolInput(tool.tool, d.arguments);
      if (!check.ok) {
        throw new DecisionError(
          "invalid-arguments",
          `The edited arguments for ${d.callId} (${call.name}) are invalid: ${check.issues.join("; ")}.`,
        );
      }
      return { callId: d.callId, decision: "approved" as const, by, arguments: d.arguments };
    }
    return { callId: d.callId, decision: "approved" as const, by };
  });
}

/** A call that does not wait for a decision: who decided it and when, or what became of it. */
function notPending(call: ToolCallRecord): DecisionError {
  const approval = call.approval;
  if (approval?.decision === "approved" || approval?.decision === "denied") {
    const when = approval.decidedAt ? ` at ${approval.decidedAt}` : "";
    return new DecisionError(
      "already-decided",
      `Tool call ${call.id} (${call.name}) was already decided: it was ${approval.decision} by ${approval.decidedBy ?? "someone"}${when}.`,
    );
  }
  return new DecisionError(
    "not-pending",
    `Tool call ${call.id} (${call.name}) does not wait for a decision: it is ${call.state}.`,
  );
}

function pendingIds(calls: readonly ToolCallRecord[]): string {
  const ids = calls.filter((c) => c.state === "pending").map((c) => c.id);
  return ids.length ? ids.join(", ") : "none";
}
