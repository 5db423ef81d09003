import { describe, expect, it } from "vitest";
import { McpApprovalConfigError, mcpApprovalsFromConfig } from "./mcp-approvals.js";

describe("mcpApprovalsFromConfig", () => {
  it("refuses a signing key from the environment shorter than 32 characters", () => {
    expect(() => mcpApprovalsFromConfig({}, undefined, { TOOLBRIDGE_MCP_SIGNING_KEY: "short" })).toThrow(
      McpApprovalConfigError,
    );
  });

  it("lets the environment decide clientAsksUser over the config file", () => {
    expect(
      mcpApprovalsFromConfig({ clientAsksUser: false }, undefined, { TOOLBRIDGE_MCP_CLIENT_ASKS_USER: "1" })
        .clientAsksUser,
    ).toBe(true);
    expect(
      mcpApprovalsFromConfig({ clientAsksUser: true }, undefined, { TOOLBRIDGE_MCP_CLIENT_ASKS_USER: "0" })
        .clientAsksUser,
    ).toBe(false);
    expect(mcpApprovalsFromConfig({ clientAsksUser: true }, undefined, {}).clientAsksUser).toBe(true);
  });

  it("opens the store only when state is first signed, and takes its key from there", async () => {
    let opened = 0;
    const approvals = mcpApprovalsFromConfig(
      {},
      () => {
        opened++;
        return { consume: () => true, signingKey: () => "k".repeat(43) };
      },
      {},
    );
    expect(opened).toBe(0);
    const same = mcpApprovalsFromConfig(
      {},
      () => ({ consume: () => true, signingKey: () => "k".repeat(43) }),
      {},
    );
    const state = await approvals.codec.mint(approvals.payload("approval", "write_file", { a: 1 }, "me"));
    expect(opened).toBe(1);
    // Another instance with the same stored key accepts the state: that is what lets two serve processes agree.
    await expect(same.codec.verify(state, {} as never)).resolves.toMatchObject({
      tool: "write_file",
      caller: "me",
    });
  });
});
