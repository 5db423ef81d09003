import { describe, expect, it } from "vitest";
import { isValidToolName } from "../tools/tool-name.js";
import { namespaceToolName } from "./namespace-tool-name.js";

describe("namespaceToolName", () => {
  it("joins server and tool with a dot", () => {
    expect(namespaceToolName("github", "create_issue")).toBe("github.create_issue");
  });

  it("replaces characters MCP names do not allow", () => {
    expect(namespaceToolName("my server", "résumé/tool")).toBe("my_server.r_sum__tool");
  });

  it("keeps long names within 128 characters and distinct", () => {
    const a = namespaceToolName("s".repeat(60), `${"t".repeat(100)}a`);
    const b = namespaceToolName("s".repeat(60), `${"t".repeat(100)}b`);
    expect(a.length).toBeLessThanOrEqual(128);
    expect(isValidToolName(a)).toBe(true);
    expect(a).not.toBe(b);
  });
});
