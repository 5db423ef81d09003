import type { ApprovalPolicyValue } from "../core/run-status.js";
import type { AnyToolDefinition } from "./tool-definition.js";

/**
 * always: run without asking; never: refuse without asking (the model is told it is not allowed);
 * ask: pause the run until a person decides.
 */
export type ApprovalPolicy = ApprovalPolicyValue;

export type ApprovalPolicyConfig =
  | Readonly<Record<string, ApprovalPolicy>>
  | ((
      call: { name: string; arguments: Record<string, unknown> },
      tool: AnyToolDefinition,
    ) => ApprovalPolicy | undefined);

/** The policy for one call: the configured one, else `ask` for tools that require approval, else `always`. */
export function resolveApprovalPolicy(
  config: ApprovalPolicyConfig | undefined,
  call: { name: string; arguments: Record<string, unknown> },
  tool: AnyToolDefinition,
): ApprovalPolicy {
  const configured = typeof config === "function" ? config(call, tool) : config?.[call.name];
  if (configured === "always" || configured === "never" || configured === "ask") return configured;
  return tool.requiresApproval ? "ask" : "always";
}
