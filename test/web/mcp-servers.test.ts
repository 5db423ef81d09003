/**
 * The MCP servers page in Debian's Chromium against `toolbridge serve` with @modelcontextprotocol/server-everything
 * mounted from the config: its state, transport and tool count; a crash of its process shows, then it is ready again.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ServeProcess, startServe } from "../helpers/serve-process.js";
import { checkPageEverywhere, chromiumAvailable, launchChromium, openPage } from "./helpers/browser.js";
import { json, until } from "./helpers/wait.js";

const EVERYTHING = path.join(
  path.dirname(
    createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/package.json"),
  ),
  "dist/index.js",
);

interface ServerStatus {
  name: string;
  state: string;
  toolCount: number;
  pid?: number;
  restarts: number;
}

let dir: string;
let serve: ServeProcess;
let browser: Browser;
const status = async () =>
  (await json<{ servers: ServerStatus[] }>(`${serve.url}/api/mcp-servers`)).servers.find(
    (s) => s.name === "everything",
  );

const available = chromiumAvailable();

describe.skipIf(!available)("web UI in Chromium: MCP servers", { timeout: 180_000 }, () => {
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "tb-web-mcp-"));
    writeFileSync(
      path.join(dir, "toolbridge.config.json"),
      JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING] } } }),
    );
    serve = await startServe(["--db", path.join(dir, "mcp.db")], { cwd: dir });
    await until("server-everything ready", async () => (await status())?.state === "ready", 60_000);
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("shows server-everything ready with its transport and tool count; killing its process shows it restarting, then ready again", async () => {
    const { context, page, errors } = await openPage(browser, `${serve.url}/servers`);
    const card = page.getByRole("article", { name: "everything" });
    const badge = card.getByRole("status");
    await until("ready", async () => (await badge.textContent()) === "ready");
    const before = (await status()) as ServerStatus;
    expect(before.toolCount).toBeGreaterThan(5);
    const facts = (await card.locator("dl").textContent()) ?? "";
    expect(facts).toContain("stdio");
    expect(facts).toContain(`Tools${before.toolCount}`);
    expect(facts).toContain(String(before.pid));

    // Every state the badge shows from now on.
    await page.evaluate(`(() => {
      window.__states = [];
      const read = () => {
        const badge = document.querySelector('[aria-label="everything"] [role="status"]');
        const text = badge ? badge.textContent : "";
        if (text && window.__states[window.__states.length - 1] !== text) window.__states.push(text);
      };
      new MutationObserver(read).observe(document.body, { subtree: true, childList: true, characterData: true });
    })()`);
    process.kill(before.pid as number, "SIGKILL");
    await until(
      "a new process, ready",
      async () => {
        const now = await status();
        return now?.state === "ready" && now.pid !== before.pid;
      },
      60_000,
    );
    await until("the page ready again", async () => (await badge.textContent()) === "ready");
    const states = (await page.evaluate("window.__states")) as string[];
    expect(
      states.some((state) => state === "restarting" || state === "error" || state === "connecting"),
    ).toBe(true);
    expect(states.at(-1)).toBe("ready");
    await until("the new pid", async () =>
      ((await card.locator("dl").textContent()) ?? "").includes(String((await status())?.pid)),
    );

    // Restart by hand.
    await card.getByRole("button", { name: "Restart" }).click();
    await until(
      "restarted",
      async () => {
        const now = await status();
        return now?.state === "ready" && (now.restarts ?? 0) > before.restarts;
      },
      60_000,
    );
    await until("ready on the page", async () => (await badge.textContent()) === "ready");
    expect(errors).toEqual([]);
    await context.close();
  });

  it("the MCP servers page, light and dark and at 390 px: screenshots, and no serious or critical axe violation", async () => {
    const found = await checkPageEverywhere(browser, `${serve.url}/servers`, "mcp-servers", async (page) => {
      await until(
        "ready",
        async () =>
          (await page.getByRole("article", { name: "everything" }).getByRole("status").textContent()) ===
          "ready",
      );
    });
    expect(found).toEqual({ light: [], dark: [], "390": [] });
  });
});
