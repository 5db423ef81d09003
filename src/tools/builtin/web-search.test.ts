import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ToolExecutor } from "../tool-executor.js";
import { ToolRegistry } from "../tool-registry.js";
import { createWebSearchTool } from "./web-search.js";

// A SearXNG-shaped server on loopback: the real HTTP path, no network beyond this machine.
let server: Server;
let base = "";
const seen: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    seen.push(url.search);
    if (url.searchParams.get("q") === "fail") {
      res.writeHead(500).end();
      return;
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        results: Array.from({ length: 8 }, (_, i) => ({
          title: `<b>Result ${i}</b>`,
          url: `https://example.org/${i}`,
          content: `About ${url.searchParams.get("q")} number ${i}`,
        })),
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function executorFor(tool: ReturnType<typeof createWebSearchTool>) {
  const registry = new ToolRegistry();
  registry.register(tool);
  return new ToolExecutor(registry, { redact: false });
}

describe("web_search", () => {
  it("queries a SearXNG backend and returns titles, URLs and snippets", async () => {
    const executor = executorFor(
      createWebSearchTool({ backend: { provider: "searxng", url: base }, maxResults: 3 }),
    );
    const result = await executor.call("web_search", { query: "tide tables" });
    expect(seen.at(-1)).toBe("?q=tide+tables&format=json");
    expect(result.isError).toBeFalsy();
    expect(result.content[0]).toMatchObject({
      text: expect.stringContaining("1. Result 0\n   https://example.org/0\n   About tide tables number 0"),
    });
    expect((result.structuredContent as { results: unknown[] }).results).toHaveLength(3);
  });

  it("reports backend failures and a missing API key as tool errors", async () => {
    const executor = executorFor(createWebSearchTool({ backend: { provider: "searxng", url: base } }));
    const failed = await executor.call("web_search", { query: "fail" });
    expect(failed).toMatchObject({ isError: true, content: [{ text: expect.stringContaining("HTTP 500") }] });
    const brave = executorFor(createWebSearchTool({ backend: { provider: "brave" }, env: {} }));
    expect(await brave.call("web_search", { query: "x" })).toMatchObject({
      isError: true,
      content: [{ text: expect.stringContaining("BRAVE_API_KEY is not set") }],
    });
  });

  it("is marked open-world and read-only, so it needs no approval but local-only mode can drop it", () => {
    const tool = createWebSearchTool({ backend: { provider: "searxng", url: base } });
    expect(tool.tool.annotations).toEqual({ readOnlyHint: true, openWorldHint: true });
    expect(tool.requiresApproval).toBe(false);
  });
});
