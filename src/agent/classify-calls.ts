import type { CallToolResult } from "@modelcontextprotocol/server";
import type { ApprovalRecord, AuditEntry, NewToolCall } from "../store/store.js";
import type { ApprovalPolicy, ApprovalPolicyConfig } from "../tools/approval-policy.js";
import { gateCall } from "../tools/call-gate.js";
import { errorResult } from "../tools/normalize-tool-result.js";
import type { AnyToolDefinition } from "../tools/tool-definition.js";
import type { CollectedCall } from "./collect-model-turn.js";
import type { AgentEventBody, PendingCall } from "./events.js";

export interface ClassifyCallsInput {
  runId: string;
  step: number;
  calls: readonly CollectedCall[];
  /** How many more tool calls this run may start (its maxToolCalls less those run). */
  budget: number;
  maxToolCalls: number;
  /** A tool the agent offers, or undefined. */
  tool: (name: string) => AnyToolDefinition | undefined;
  toolNames: () => string[];
  /** The run's approval policies (the gate resolves each call's policy from them and the tool's annotations). */
  approval: ApprovalPolicyConfig | undefined;
  /** The executor's verdict on a call's arguments: the model-friendly message, or undefined when they are valid. */
  checkArguments: (tool: AnyToolDefinition, args: Record<string, unknown>) => string | undefined;
  dryRun: boolean;
  /** Redact and cap an observation. */
  observe: (result: CallToolResult) => CallToolResult;
  now?: () => string;
}

export interface ClassifiedCalls {
  /** One record per call, in the model's order, each in the state it is stored in. */
  calls: NewToolCall[];
  audit: AuditEntry[];
  /** Calls that wait for a person's decision. */
  pending: PendingCall[];
  /** `call-finished` / `call-invalid`, in call order, for the caller to report. */
  events: AgentEventBody[];
}

/**
 * What becomes of each call a model made, before anything runs: unreadable, unknown or invalid calls get their error
 * observation now; the rest get the call gate's answer (the one every surface asks) — refused (`never`), pending
 * (`ask`), or approved — or are refused over the tool-call budget. A dry run needs no approval for tools with side
 * effects (they only report what they would do). Pure: the caller records and reports the result.
 */
export function classifyCalls(input: ClassifyCallsInput): ClassifiedCalls {
  const now = input.now ?? (() => new Date().toISOString());
  const out: ClassifiedCalls = { calls: [], audit: [], pending: [], events: [] };
  let budget = input.budget;
  const refuse = (call: CollectedCall, position: number, message: string) => {
    out.events.push({ type: "call-invalid", step: input.step, callId: call.id, name: call.name, message });
    out.calls.push({
      id: call.id,
      position,
      name: call.name,
      arguments: call.arguments,
      state: "invalid",
      outcome: "invalid",
      result: input.observe(errorResult(message)),
    });
  };
  for (const [position, call] of input.calls.entries()) {
    if (call.error !== undefined) {
      refuse(
        call,
        position,
        `Could not read the call${call.name ? ` to ${call.name}` : ""}: ${call.error}. Write the call again.`,
      );
      continue;
    }
    out.events.push({
      type: "call-finished",
      step: input.step,
      callId: call.id,
      name: call.name,
      arguments: call.arguments,
    });
    const tool = input.tool(call.name);
    const gate = gateCall({
      name: call.name,
      arguments: call.arguments,
      tool,
      approval: input.approval,
      caller: { dryRun: input.dryRun },
      toolNames: input.toolNames,
    });
    if (!tool) {
      // The gate refuses a tool this agent does not offer; the model is told which ones it does.
      refuse(call, position, `${gate.action === "refuse" ? gate.message : ""} Call one of those instead.`);
      continue;
    }
    // The executor owns the wording of validation messages: a call refused here reads as one it refused itself.
    const problem = input.checkArguments(tool, call.arguments);
    if (problem !== undefined) {
      refuse(call, position, problem);
      continue;
    }
    const base = { id: call.id, position, name: call.name, arguments: call.arguments };
    if (gate.action === "refuse") {
      // The agent only offers switched-on tools and brings no decision: a refusal here is the policy `never`.
      const policy = gate.policy ?? "never";
      const text = `${call.name} is not allowed in this run (approval policy: never); it was not run.`;
      const approval = decided(policy, "denied", now(), "policy: never");
      out.calls.push({
        ...base,
        state: "denied",
        outcome: "denied",
        result: input.observe(errorResult(text)),
        approval,
      });
      out.audit.push({
        actor: "policy",
        action: "deny",
        runId: input.runId,
        callId: call.id,
        detail: { policy },
      });
      continue;
    }
    if (budget <= 0) {
      const text = `Not run: this run's limit of ${input.maxToolCalls} tool calls is reached.`;
      out.calls.push({
        ...base,
        state: "refused",
        outcome: "refused",
        result: input.observe(errorResult(text)),
      });
      continue;
    }
    budget -= 1;
    if (gate.action === "ask") {
      const approval: ApprovalRecord = {
        policy: gate.policy,
        decision: "pending",
        decidedBy: null,
        decidedAt: null,
        reason: null,
        originalArguments: null,
      };
      out.calls.push({ ...base, state: "pending", approval });
      out.pending.push({ callId: call.id, name: call.name, arguments: call.arguments });
    } else if (gate.approvedBy !== undefined) {
      // Approved without asking although the tool normally asks (--auto-approve, a policy, a dry run): keep a record.
      const dryRun = gate.approvedBy === "dry-run";
      const approval = decided(gate.policy, "approved", now(), dryRun ? DRY_RUN_APPROVAL : null);
      out.calls.push({ ...base, state: "approved", approval });
      out.audit.push({
        actor: "policy",
        action: "approve",
        runId: input.runId,
        callId: call.id,
        detail: { policy: gate.policy, dryRun: input.dryRun },
      });
    } else {
      out.calls.push({ ...base, state: "approved" });
    }
  }
  return out;
}

/**
 * Whether a call made mid-generation can be settled at once without pausing the run: it will run (no approval
 * needed, tool-call budget left) or is refused with an observation (unknown tool, invalid arguments, policy never).
 */
export function settlesAtOnce(
  input: Omit<ClassifyCallsInput, "calls" | "runId" | "step" | "observe"> & {
    call: CollectedCall;
  },
): boolean {
  if (input.budget <= 0) return false;
  const tool = input.tool(input.call.name);
  if (!tool || input.checkArguments(tool, input.call.arguments) !== undefined) return true;
  const gate = gateCall({
    name: input.call.name,
    arguments: input.call.arguments,
    tool,
    approval: input.approval,
    caller: { dryRun: input.dryRun },
  });
  return gate.action !== "ask";
}

/** The reason recorded on a call approved only because its run is a dry run (see run-claimed-calls.ts). */
export const DRY_RUN_APPROVAL = "dry run";

function decided(
  policy: ApprovalPolicy,
  decision: "approved" | "denied",
  at: string,
  reason: string | null,
): ApprovalRecord {
  return { policy, decision, decidedBy: "policy", decidedAt: at, reason, originalArguments: null };
}
