/**
 * The web UI against `toolbridge serve --token` in Debian's Chromium: the sign-in page (the token exchanged for the
 * HttpOnly session cookie, never kept by script), and a restart of serve under an open page — it reconnects by
 * itself, shows the same pending calls, and each run's stream goes on from its last event.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ServeProcess, startServe } from "../helpers/serve-process.js";
import { checkPageEverywhere, chromiumAvailable, launchChromium, openPage } from "./helpers/browser.js";
import { phaseOf, until } from "./helpers/wait.js";

const TOKEN = "web-ui-test-token-7c1f";
const TOOLS = path.resolve(import.meta.dirname, "fixtures/web-tools.mjs");

let dir: string;
let serve: ServeProcess;
let browser: Browser;
const start = (port?: number) =>
  startServe(["--db", path.join(dir, "signin.db"), "--tools-module", TOOLS, "--token", TOKEN], {
    cwd: dir,
    env: {
      TOOLBRIDGE_MODEL: `replay:${path.join(dir, "turns.jsonl")}`,
      TB_WEB_TOOL_LOG: path.join(dir, "log.jsonl"),
    },
    ...(port ? { port } : {}),
  });

const available = chromiumAvailable();

describe.skipIf(!available)("web UI in Chromium: sign-in and reconnecting", { timeout: 180_000 }, () => {
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "tb-web-signin-"));
    writeFileSync(
      path.join(dir, "turns.jsonl"),
      `${JSON.stringify({
        text: "Writing.",
        calls: [
          { name: "write_note", arguments: { file: "alpha.txt", text: "one" } },
          { name: "write_note", arguments: { file: "beta.txt", text: "two" } },
        ],
      })}\n${JSON.stringify({ text: "Both notes are written." })}\n`,
    );
    serve = await start();
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("asks for the token, refuses a wrong one, and signs in with the right one without keeping it in script", async () => {
    const { context, page } = await openPage(browser, `${serve.url}/tools`);
    await page.getByRole("heading", { name: "Sign in to toolbridge" }).waitFor();
    const token = page.getByLabel("Token");
    await token.fill("not-the-token");
    await page.getByRole("button", { name: "Sign in" }).click();
    await until("the refusal", () =>
      page
        .getByRole("alert")
        .getByText(/token is wrong/)
        .isVisible(),
    );
    expect(await token.inputValue()).toBe("");
    await token.fill(TOKEN);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Tools", exact: true }).waitFor();
    // Held by the browser as an HttpOnly cookie only: not in storage, not readable by script, not in the URL.
    const seen = (await page.evaluate(`JSON.stringify([
      document.cookie, Object.entries(localStorage), Object.entries(sessionStorage), location.href, document.body.innerHTML
    ])`)) as string;
    expect(seen).not.toContain(TOKEN);
    const cookies = await context.cookies();
    expect(cookies.find((cookie) => cookie.name === "toolbridge_session")).toMatchObject({
      httpOnly: true,
      sameSite: "Strict",
    });
    await page.reload();
    await page.getByRole("heading", { name: "Tools", exact: true }).waitFor();
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Sign in to toolbridge" }).waitFor();
    await context.close();
  });

  it("the sign-in page, light and dark and at 390 px: screenshots, and no serious or critical axe violation", async () => {
    const found = await checkPageEverywhere(browser, `${serve.url}/`, "sign-in", async (page) => {
      await page.getByRole("heading", { name: "Sign in to toolbridge" }).waitFor();
    });
    expect(found).toEqual({ light: [], dark: [], "390": [] });
  });

  it("reconnects by itself after serve restarts: the same pending calls, and the run's events go on from the last one", async () => {
    const { context, page, errors } = await openPage(browser, `${serve.url}/`);
    await page.getByLabel("Token").fill(TOKEN);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("textbox", { name: "Message" }).fill("write both");
    await page.getByRole("button", { name: "Send" }).click();
    const card = (file: string) =>
      page.getByRole("group", { name: "write_note", exact: true }).filter({ hasText: file });
    await phaseOf(card("alpha.txt"), "awaiting-approval");
    await phaseOf(card("beta.txt"), "awaiting-approval");

    const port = serve.port;
    await serve.stop();
    await until("the reconnecting banner", () =>
      page
        .getByRole("status")
        .getByText(/reconnecting/)
        .isVisible(),
    );
    serve = await start(port);
    await until("the banner gone", async () => !(await page.getByText(/reconnecting/).isVisible()), 30_000);
    // The same calls still wait (a restart loses no approval), in the header too.
    await until("the header's count", () =>
      page.getByRole("button", { name: "2 pending approvals" }).isVisible(),
    );
    expect(await card("alpha.txt").getAttribute("data-phase")).toBe("awaiting-approval");

    await card("alpha.txt").getByRole("button", { name: "Approve", exact: true }).click();
    await card("beta.txt").getByRole("button", { name: "Approve", exact: true }).click();
    await phaseOf(card("alpha.txt"), "done");
    await phaseOf(card("beta.txt"), "done");
    await until("the answer", () => page.getByText("Both notes are written.").isVisible());
    // Each event once: one answer, one card per call.
    expect(await page.getByText("Both notes are written.").count()).toBe(1);
    expect(await page.getByRole("group", { name: "write_note", exact: true }).count()).toBe(2);
    expect(
      errors.filter((error) => !/WebSocket|ERR_CONNECTION_REFUSED|Failed to load resource/.test(error)),
    ).toEqual([]);
    await context.close();
  });
});
