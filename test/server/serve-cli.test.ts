import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { runCli } from "../helpers/run-cli.js";
import { startServe as startServeProcess, stopAllServes } from "../helpers/serve-process.js";
import { send } from "./http.js";

vi.setConfig({ testTimeout: 90_000 });

const dir = mkdtempSync(path.join(tmpdir(), "tb-serve-cli-"));
const db = path.join(dir, "serve.db");
afterAll(async () => {
  await stopAllServes();
  rmSync(dir, { recursive: true, force: true });
});

/** `toolbridge serve --port 0 --db <db> …` in its own folder, with the start banner it printed. */
async function startServe(extra: string[] = [], env: Record<string, string> = {}) {
  const serve = await startServeProcess(["--db", db, ...extra], { cwd: dir, env });
  return { ...serve, banner: serve.output() };
}

describe("toolbridge serve", () => {
  it("lists every URL it serves in --help", () => {
    const help = runCli(["serve", "--help"]);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/REST API.*http:\/\/<host>:<port>\/api/);
    expect(help.stdout).toMatch(/MCP endpoint.*http:\/\/<host>:<port>\/mcp/);
    expect(help.stdout).toContain("--cors-origin <origin...>");
  });

  it("refuses a --cors-origin that is not an origin (exit 2)", () => {
    const bad = runCli(["serve", "--port", "0", "--db", db, "--cors-origin", "localhost:5173/app"], {
      cwd: dir,
    });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("--cors-origin takes origins like http://localhost:5173");
  });

  it("prints each URL at start, and keeps a tool setting made through the API across a restart", async () => {
    const first = await startServe(["--cors-origin", "http://localhost:5173"]);
    expect(first.banner).toContain(`${first.url}/api\n`);
    expect(first.banner).toContain(`${first.url}/mcp\n`);
    // Serving alone creates no database; the first change does.
    expect((await send(`${first.url}/api/tools?category=math`)).json.tools[0]).toMatchObject({
      name: "calculator",
      enabled: true,
      source: { type: "builtin" },
    });
    expect(existsSync(db)).toBe(false);
    const changed = await send(`${first.url}/api/tools/calculator`, {
      method: "PATCH",
      body: '{"enabled": false, "policy": "ask"}',
    });
    expect(changed.status).toBe(200);
    expect(existsSync(db)).toBe(true);
    await first.stop();

    const second = await startServe();
    try {
      const calculator = (await send(`${second.url}/api/tools/calculator`)).json;
      expect(calculator).toMatchObject({ enabled: false, policy: "ask" });
      const call = await send(`${second.url}/api/tools/calculator/call`, {
        body: '{"arguments": {"expression": "1+1"}}',
      });
      expect(call.status).toBe(404);
      expect(call.json.error.code).toBe("tool_disabled");
    } finally {
      await second.stop();
    }
  });

  it("answers the REST API URL of its banner with the routes it serves, each of which answers", async () => {
    const serve = await startServe();
    try {
      const rest = /REST API.*?(http:\/\/\S+\/api)\n/.exec(serve.banner)?.[1];
      expect(rest).toBe(`${serve.url}/api`);
      const index = await send(rest!);
      expect(index.status).toBe(200);
      const routes = index.json.routes as { path: string; methods: string[] }[];
      const listed = routes.map((route) => `${route.methods.join(",")} ${route.path}`);
      // Every surface of the banner, in the docs' own notation ({id}), with its methods.
      expect(listed).toEqual(
        expect.arrayContaining([
          "GET,POST /api/runs",
          "GET /api/runs/{id}/events",
          "POST /api/runs/{id}/decisions",
          "GET,PATCH /api/tools/{name}",
          "POST /api/tools/{name}/call",
          "DELETE,GET,POST /api/session",
          "POST /v1/chat/completions",
          "POST /v1/responses",
          "POST /v1/messages",
          "GET /ws",
          "ALL /mcp",
          "GET /healthz",
        ]),
      );
      // No middleware, no web UI page, nothing listed twice.
      expect(routes.every((route) => !route.path.includes("*"))).toBe(true);
      expect(new Set(routes.map((route) => route.path)).size).toBe(routes.length);
      // What is listed is served: every GET without a parameter answers, none with "no such route".
      for (const { path: route } of routes.filter(
        (r) => r.methods.includes("GET") && !r.path.includes("{") && r.path !== "/ws",
      )) {
        const answer = await send(`${serve.url}${route}`);
        expect(answer.json?.error?.code, route).not.toBe("route_not_found");
        expect(answer.status, route).toBeLessThan(500);
      }
    } finally {
      await serve.stop();
    }
  });

  it("takes --model like run: the scripted model answers at /v1 as the default", async () => {
    const turns = path.join(dir, "serve-turns.jsonl");
    writeFileSync(turns, `${JSON.stringify({ text: "Scripted hello." })}\n`);
    const serve = await startServe(["--model", `replay:${turns}`], { TOOLBRIDGE_MODEL: "" });
    try {
      expect(serve.banner).toMatch(/models: replay \(default replay\)/);
      const answer = await send(`${serve.url}/v1/chat/completions`, {
        body: JSON.stringify({ model: "replay", messages: [{ role: "user", content: "hi" }] }),
      });
      expect(answer.status, answer.body).toBe(200);
      expect(answer.json.choices[0].message.content).toBe("Scripted hello.");
    } finally {
      await serve.stop();
    }
  });

  it("refuses a bad model flag at start, naming it", () => {
    const bad = runCli(["serve", "--port", "0", "--db", db, "--model", path.join(dir, "missing.gguf")], {
      cwd: dir,
    });
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain("GGUF file not found");
    expect(bad.stderr).toContain("--model");
  });

  it("answers a foreign Origin 403 naming --allowed-origin and the config key; the config key lets it in", async () => {
    const origin = "https://app.example";
    const refused = await startServe();
    try {
      const response = await send(`${refused.url}/api/tools`, { headers: { origin } });
      expect(response.status).toBe(403);
      expect(response.json.error.message).toContain(`--allowed-origin ${origin}`);
      expect(response.json.error.message).toContain("server.allowedOrigins");
      const host = await send(`${refused.url}/api/tools`, { headers: { host: "tools.example" } });
      expect(host.status).toBe(403);
      expect(host.json.error.message).toContain("--allowed-host");
      expect(host.json.error.message).toContain("server.allowedHosts");
    } finally {
      await refused.stop();
    }
    const config = path.join(dir, "origins.config.json");
    writeFileSync(config, JSON.stringify({ server: { allowedOrigins: [origin] } }));
    const allowed = await startServe(["--config", config]);
    try {
      expect((await send(`${allowed.url}/api/tools`, { headers: { origin } })).status).toBe(200);
    } finally {
      await allowed.stop();
    }
  });
});
