import { type ApprovalPolicy, type ApprovalPolicyConfig, resolveApprovalPolicy } from "./approval-policy.js";
import { ToolNotFoundError } from "./errors.js";
import type { AnyToolDefinition } from "./tool-definition.js";
import type { ToolRegistry } from "./tool-registry.js";

/**
 * What a caller brings besides the call: a person's decision on this very call — `approved` for `"confirm": true`
 * (REST, WebSocket), an accepted MCP elicitation (or a client trusted to ask its user), a run's approve, a prompt
 * answered yes, the person's own `tools call`; `denied` for a decline — and whether it is a dry run.
 */
export interface CallerWord {
  decision?: "approved" | "denied" | undefined;
  /**
   * A dry run: nothing changes, so it needs nobody's approval. Tools with side effects report what they would do; a
   * tool whose policy asks reports it too, read-only or not, unless a person approved this call (`describeInstead`).
   */
  dryRun?: boolean | undefined;
}

export type RefusalReason = "unknown" | "switched-off" | "never" | "denied";

/**
 * The gate's answer. `run`: `approvedBy` says why a tool that needs approval runs without a question (its policy, a
 * person's word, a dry run), so a surface that keeps records can keep one; undefined for a tool that needs none.
 * `ask`: a person must decide first. `refuse`: not run, ever, for this request. Messages say what happened and that
 * nothing ran; a surface adds how to change it in its own terms.
 */
export type CallGateAnswer =
  | { action: "run"; policy: ApprovalPolicy; approvedBy: "policy" | "person" | "dry-run" | undefined }
  | { action: "ask"; policy: "ask"; message: string }
  | { action: "refuse"; reason: RefusalReason; policy: ApprovalPolicy | undefined; message: string };

/**
 * How a call the gate let through runs: a dry run's call that nobody approved only reports what it would do, even
 * for a read-only tool (its policy asks: nothing of it runs without a person). Every surface passes this on to
 * ToolExecutor.execute.
 */
export function executeOptionsFor(
  answer: Extract<CallGateAnswer, { action: "run" }>,
  dryRun: boolean | undefined,
): { dryRun?: true; describeInstead?: true } {
  if (!dryRun) return {};
  return answer.approvedBy === "dry-run" ? { dryRun: true, describeInstead: true } : { dryRun: true };
}

export interface GateCallInput {
  name: string;
  arguments: Record<string, unknown>;
  /** The tool as registered (switched off or not), or undefined when the caller may not see one by that name. */
  tool: AnyToolDefinition | undefined;
  /** Whether the tool is switched on (tool settings). Default true. */
  enabled?: boolean;
  /** Policies from the API settings over the config; tools named in neither follow their annotations. */
  approval?: ApprovalPolicyConfig | undefined;
  caller?: CallerWord;
  /** The names offered, for the "unknown tool" message. */
  toolNames?: () => readonly string[];
}

/**
 * The one decision of whether a tool call runs, made the same way for every surface that runs tools — the agent
 * loop, MCP (both eras, HTTP and stdio), the Tools API, the WebSocket API and the CLI. Each surface gathers what it
 * knows (the tool, its settings, what its caller brought) and renders the answer: a pause, an elicitation, a 403
 * naming `confirm`, an error reply, a refusal the model reads.
 */
export function gateCall(input: GateCallInput): CallGateAnswer {
  const { name, tool } = input;
  if (!tool) {
    const unknown = new ToolNotFoundError(name, input.toolNames?.() ?? []);
    return { action: "refuse", reason: "unknown", policy: undefined, message: unknown.message };
  }
  if (input.enabled === false) {
    return {
      action: "refuse",
      reason: "switched-off",
      policy: undefined,
      message: `The tool "${name}" is switched off on this server; nothing ran.`,
    };
  }
  const policy = resolveApprovalPolicy(input.approval, { name, arguments: input.arguments }, tool);
  if (policy === "never") {
    return {
      action: "refuse",
      reason: "never",
      policy,
      message: `The tool "${name}" may not be called (its policy is "never"); nothing ran.`,
    };
  }
  const caller = input.caller ?? {};
  if (caller.decision === "denied") {
    return {
      action: "refuse",
      reason: "denied",
      policy,
      message: `A person declined this call to "${name}"; nothing ran.`,
    };
  }
  if (policy === "ask") {
    if (caller.decision === "approved") return { action: "run", policy, approvedBy: "person" };
    if (caller.dryRun) return { action: "run", policy, approvedBy: "dry-run" };
    return {
      action: "ask",
      policy,
      message: `The tool "${name}" needs a person's approval (its policy is "ask"); nothing ran.`,
    };
  }
  return { action: "run", policy, approvedBy: tool.requiresApproval ? "policy" : undefined };
}

/**
 * gateCall over a registry: the tool is looked up with switched-off ones included (so the answer can say "switched
 * off" rather than "unknown"), its on/off state is the registry's (tool settings switch it), and the policy is the
 * one given — a function config is asked at every call, so a setting changed at run time applies to the next call.
 */
export class CallGate {
  constructor(
    readonly registry: ToolRegistry,
    readonly approval?: ApprovalPolicyConfig | undefined,
  ) {}

  check(call: { name: string; arguments?: unknown }, caller: CallerWord = {}): CallGateAnswer {
    const args =
      call.arguments !== null && typeof call.arguments === "object" && !Array.isArray(call.arguments)
        ? (call.arguments as Record<string, unknown>)
        : {};
    return gateCall({
      name: call.name,
      arguments: args,
      tool: this.registry.get(call.name, { includeDisabled: true }),
      enabled: this.registry.isEnabled(call.name),
      approval: this.approval,
      caller,
      toolNames: () => this.registry.names(),
    });
  }

  /** Whether a tool is offered at all (listed): not when a call of it would be refused before anyone is asked. */
  offers(tool: AnyToolDefinition): boolean {
    return this.check({ name: tool.tool.name, arguments: {} }).action !== "refuse";
  }
}
