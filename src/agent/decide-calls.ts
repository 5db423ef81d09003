import type { CallToolResult } from "@modelcontextprotocol/server";
import type { CallDecision, ToolCallRecord } from "../store/store.js";
import { errorResult } from "../tools/normalize-tool-result.js";
import type { AnyToolDefinition } from "../tools/tool-definition.js";
import { validateToolInput } from "../tools/validate-tool-input.js";
import { DecisionError } from "./agent-errors.js";

export type ApprovalDecision =
  | { callId: string; decision: "approve"; arguments?: Record<string, unknown> }
  | { callId: string; decision: "deny"; reason?: string };

/**
 * Check a batch of decisions against the run's calls and turn them into what the store records — all or none: an
 * unknown call, one not waiting for a decision, one decided twice in the batch, or edited arguments the tool's schema
 * rejects throws a DecisionError naming it, and nothing is recorded. A denial carries the observation the model sees.
 */
export function prepareDecisions(input: {
  runId: string;
  calls: readonly ToolCallRecord[];
  decisions: readonly ApprovalDecision[];
  by: string;
  tool: (name: string) => AnyToolDefinition | undefined;
  observe: (result: CallToolResult) => CallToolResult;
}): CallDecision[] {
  const { runId, calls, by } = input;
  const seen = new Set<string>();
  return input.decisions.map((d) => {
    const call = calls.find((c) => c.id === d.callId);
    if (!call)
      throw new DecisionError(`Run ${runId} has no tool call "${d.callId}". Pending: ${pendingIds(calls)}.`);
    if (call.state !== "pending") {
      throw new DecisionError(
        `Tool call ${d.callId} (${call.name}) is not waiting for a decision: it is ${call.state}.`,
      );
    }
    if (seen.has(d.callId))
      throw new DecisionError(`Tool call ${d.callId} appears twice in one batch; decide it once.`);
    seen.add(d.callId);
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
        throw new DecisionError(`Tool ${call.name} is no longer available; deny call ${d.callId} instead.`);
      const check = validateToolInput(tool.tool, d.arguments);
      if (!check.ok) {
        throw new DecisionError(
          `The edited arguments for ${d.callId} (${call.name}) are invalid: ${check.issues.join("; ")}.`,
        );
      }
      return { callId: d.callId, decision: "approved" as const, by, arguments: d.arguments };
    }
    return { callId: d.callId, decision: "approved" as const, by };
  });
}

function pendingIds(calls: readonly ToolCallRecord[]): string {
  const ids = calls.filter((c) => c.state === "pending").map((c) => c.id);
  return ids.length ? ids.join(", ") : "none";
}
