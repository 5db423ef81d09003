/**
 * The web UI's chat in Debian's Chromium against `toolbridge serve` (the built bin) on the bundled demo model: what a
 * person sees first. One serve and one browser for the file.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ServeProcess, startServe } from "../helpers/serve-process.js";
import {
  cardPhases,
  checkPageEverywhere,
  chromiumAvailable,
  launchChromium,
  openPage,
  recordCardPhases,
} from "./helpers/browser.js";
import { json, phaseOf, until } from "./helpers/wait.js";

let dir: string;
let serve: ServeProcess;
let browser: Browser;
let conversationId: string;

const available = chromiumAvailable();

describe.skipIf(!available)(
  "web UI in Chromium: chat on the bundled demo model",
  { timeout: 180_000 },
  () => {
    beforeAll(async () => {
      dir = mkdtempSync(path.join(tmpdir(), "tb-web-chat-"));
      serve = await startServe(["--db", path.join(dir, "chat.db")], { cwd: dir });
      browser = await launchChromium();
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      await serve?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it("serve prints the UI's URL first, and serves it offline (nothing requested from another origin)", async () => {
      const routes = serve
        .output()
        .split("\n")
        .filter((line) => /https?:\/\/|ws:\/\//.test(line));
      expect(routes[1]).toMatch(/^ {2}Web UI .* http:\/\/127\.0\.0\.1:\d+\/$/);
      const { context, page } = await openPage(browser, "about:blank");
      const foreign: string[] = [];
      page.on("request", (request) => {
        if (
          !request.url().startsWith(serve.url) &&
          !request.url().startsWith(serve.url.replace("http", "ws"))
        )
          foreign.push(request.url());
      });
      await page.goto(`${serve.url}/`);
      await page.getByRole("textbox", { name: "Message" }).waitFor();
      expect(foreign).toEqual([]);
      await context.close();
    });

    it('"what is 15% of 47.50?": a calculator card appears, shows running, then 7.125 and a duration; the answer streams in with 7.125', async () => {
      const { context, page, errors } = await openPage(browser, `${serve.url}/`);
      await recordCardPhases(page);
      // Each text the answer shows, with its run's status at that moment.
      await page.evaluate(`(() => {
      window.__answers = [];
      new MutationObserver(() => {
        const answer = document.querySelector(".answer");
        const text = answer ? answer.textContent : "";
        const last = window.__answers[window.__answers.length - 1];
        const status = document.querySelector(".run") ? document.querySelector(".run").dataset.status : "";
        if (text && (!last || last[0] !== text)) window.__answers.push([text, status]);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    })()`);
      await page.getByRole("textbox", { name: "Message" }).fill("what is 15% of 47.50?");
      await page.getByRole("button", { name: "Send" }).click();
      const card = page.getByRole("group", { name: "calculator", exact: true });
      await card.waitFor({ timeout: 90_000 });
      await phaseOf(card, "done", 90_000);
      const header = (await card.getByRole("button").first().textContent()) ?? "";
      expect(header).toContain("7.125");
      expect(header).toContain("built-in");
      expect(header).toMatch(/\d+(\.\d)? (ms|s)/);
      expect(await cardPhases(page, "calculator")).toEqual(expect.arrayContaining(["running", "done"]));
      const phases = await cardPhases(page, "calculator");
      expect(phases.indexOf("running")).toBeLessThan(phases.indexOf("done"));

      await until(
        "the answer",
        async () => ((await page.locator(".answer").last().textContent()) ?? "").includes("7.125"),
        60_000,
      );
      const answers = (await page.evaluate("window.__answers")) as Array<[string, string]>;
      // Streamed: shown as its text arrived, while the run was still going — not filled in from the final answer.
      // (The demo model writes its short answer within one of the server's 25 ms text batches: one piece here.)
      expect(answers[0]?.[1]).toBe("running");
      expect(answers.at(-1)?.[0]).toContain("7.125");
      expect(answers.every(([text], i) => i === 0 || text.startsWith(answers[i - 1]?.[0] as string))).toBe(
        true,
      );
      // Expanded: the arguments and the result.
      await card.getByRole("button").first().click();
      await until("the arguments", () =>
        card.getByRole("group", { name: "Arguments of calculator" }).isVisible(),
      );
      expect(await card.textContent()).toContain("15% of 47.50");
      conversationId = decodeURIComponent(page.url().split("/chat/")[1] ?? "");
      expect(conversationId).toMatch(/^conv_/);
      expect(errors).toEqual([]);
      await context.close();
    });

    it("a reload shows the same conversation; it can be renamed and deleted", async () => {
      const { context, page, errors } = await openPage(browser, `${serve.url}/chat/${conversationId}`);
      const card = page.getByRole("group", { name: "calculator", exact: true });
      await phaseOf(card, "done");
      expect(await card.textContent()).toContain("7.125");
      const sidebar = page.getByRole("navigation", { name: "Conversations" }).first();
      await sidebar.getByRole("button", { name: /Actions for what is 15% of 47.50/ }).click();
      await page.getByRole("menuitem", { name: "Rename" }).click();
      const rename = page.getByRole("dialog", { name: "Rename conversation" });
      await rename.getByRole("textbox", { name: "Title" }).fill("Tip maths");
      await rename.getByRole("button", { name: "Save" }).click();
      await until("the new title", () => sidebar.getByRole("link", { name: /Tip maths/ }).isVisible());
      const listed = await json<{ data: Array<{ conversationId: string; title: string }> }>(
        `${serve.url}/api/conversations`,
      );
      expect(listed.data.find((c) => c.conversationId === conversationId)?.title).toBe("Tip maths");

      await sidebar.getByRole("button", { name: "Actions for Tip maths" }).click();
      await page.getByRole("menuitem", { name: "Delete" }).click();
      await page.getByRole("alertdialog").getByRole("button", { name: "Delete" }).click();
      await until(
        "the list without it",
        async () => (await sidebar.getByRole("link", { name: /Tip maths/ }).count()) === 0,
      );
      expect((await fetch(`${serve.url}/api/conversations/${conversationId}`)).status).toBe(404);
      expect(errors).toEqual([]);
      await context.close();
    });

    it("the chat, light and dark and at 390 px: screenshots, and no serious or critical axe violation", async () => {
      const { context, page } = await openPage(browser, `${serve.url}/`);
      await page.getByRole("textbox", { name: "Message" }).fill("roll 2d6+3");
      await page.getByRole("button", { name: "Send" }).click();
      await until("the answer", () => page.locator(".run[data-status=finished]").isVisible(), 90_000);
      const url = page.url();
      await context.close();
      const found = await checkPageEverywhere(browser, url, "chat", async (p) => {
        await p.locator(".run[data-status=finished]").waitFor();
      });
      expect(found).toEqual({ light: [], dark: [], "390": [] });
    });
  },
);
