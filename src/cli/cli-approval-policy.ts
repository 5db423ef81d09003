import type { ApprovalPolicy } from "../tools/approval-policy.js";

export interface CliApprovalPolicyOptions {
  /** The policy set for the tool through the server (`PATCH /api/tools/{name}`), else in the config, if any. */
  stored: (name: string) => ApprovalPolicy | undefined;
  /** A person's answer at this session's prompt, e.g. chat's "always allow this tool in this chat". */
  answered?: ((call: { name: string }) => ApprovalPolicy | undefined) | undefined;
  /** `--require-approval`: these tools ask in this run. */
  requireApproval: ReadonlySet<string>;
  /** `--auto-approve`: the run approves its calls on its own. */
  autoApprove: boolean;
}

/**
 * The approval policy of a CLI run (`run`, `chat`, `runs resume`). Flags cannot weaken what a person set through the
 * server: `never` is refused whatever the flags say, and `ask` asks even with `--auto-approve` (a tool named on
 * purpose wins over the blanket flag, as `--require-approval` does). A person's own answer in this session (which
 * they gave to an `ask`) and `--require-approval` come next; a stored `always` then counts like `--auto-approve` for
 * that tool; undefined leaves the tool's default (`ask` when it requires approval).
 */
export function cliApprovalPolicy(
  options: CliApprovalPolicyOptions,
): (call: { name: string }) => ApprovalPolicy | undefined {
  return (call) => {
    const stored = options.stored(call.name);
    if (stored === "never") return "never";
    const answered = options.answered?.(call);
    if (answered !== undefined) return answered;
    if (options.requireApproval.has(call.name)) return "ask";
    if (stored !== undefined) return stored;
    return options.autoApprove ? "always" : undefined;
  };
}
