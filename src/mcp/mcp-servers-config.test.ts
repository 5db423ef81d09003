import { describe, expect, it } from "vitest";
import { McpServersConfigError, parseMcpServersConfig } from "./mount-mcp-servers.js";

describe("parseMcpServersConfig", () => {
  it("accepts the mcpServers object of a desktop client config unchanged", () => {
    const desktop = {
      filesystem: {
        command: "npx",
        args: ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop"],
        env: { DEBUG: "1" },
      },
      remote: { type: "http", url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer x" } },
      legacy: { type: "sse", url: "http://localhost:3001/sse" },
      paused: { command: "node", args: ["server.js"], disabled: true, timeoutMs: 5000 },
    };
    expect(parseMcpServersConfig(desktop)).toEqual(desktop);
  });

  it("names the server and the field that is wrong", () => {
    const attempt = () =>
      parseMcpServersConfig({
        good: { command: "node" },
        bad: { args: ["x"] },
        worse: { url: "ftp://example.com" },
      });
    expect(attempt).toThrow(McpServersConfigError);
    expect(attempt).toThrow(/mcpServers\.bad/);
    expect(attempt).toThrow(/mcpServers\.worse/);
    expect(attempt).toThrow(/"command".*"url"/);
  });
});
