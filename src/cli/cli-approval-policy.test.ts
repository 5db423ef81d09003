import { describe, expect, it } from "vitest";
import { cliApprovalPolicy } from "./cli-approval-policy.js";

describe("cliApprovalPolicy", () => {
  const stored = { wipe: "never", mail: "ask", read: "always" } as const;
  const policy = (flags: { autoApprove?: boolean; require?: string[]; answered?: string[] } = {}) =>
    cliApprovalPolicy({
      stored: (name) => stored[name as keyof typeof stored],
      answered: (call) => (flags.answered?.includes(call.name) ? "always" : undefined),
      requireApproval: new Set(flags.require ?? []),
      autoApprove: flags.autoApprove ?? false,
    });

  it("never lets flags or answers run a tool set to never through the server", () => {
    expect(policy({ autoApprove: true, answered: ["wipe"] })({ name: "wipe" })).toBe("never");
  });

  it("asks for a tool set to ask even with --auto-approve, unless the person already said always here", () => {
    expect(policy({ autoApprove: true })({ name: "mail" })).toBe("ask");
    expect(policy({ answered: ["mail"] })({ name: "mail" })).toBe("always");
  });

  it("lets --require-approval win over a stored always, and leaves unset tools to the flags and defaults", () => {
    expect(policy()({ name: "read" })).toBe("always");
    expect(policy({ require: ["read"] })({ name: "read" })).toBe("ask");
    expect(policy()({ name: "other" })).toBeUndefined();
    expect(policy({ autoApprove: true })({ name: "other" })).toBe("always");
  });
});
