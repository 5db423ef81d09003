/**
 * The web UI against two real `toolbridge serve` processes (the built bin) on one PostgreSQL database, as behind a
 * load balancer that sends a person's tabs to different instances: a run started from instance A's page pauses on two
 * gated `write_note` calls; a page open on instance B shows them in its "N pending" list; they are decided there, A's
 * cards follow each decision, the approved call runs once (counted by the tool itself) and both pages show the run
 * finished. Then the run's Stop on the other instance. Skipped only where no Chromium or no PostgreSQL can be started
 * (CI has both).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDatabase, dropDatabase, postgresMissing, postgresUrl } from "../helpers/postgres.js";
import { type ServeProcess, startServe } from "../helpers/serve-process.js";
import {
  chromiumAvailable,
  launchChromium,
  openPage,
  screenshot,
  seriousViolations,
} from "./helpers/browser.js";
import { json, phaseOf, until } from "./helpers/wait.js";

const TOOLS = path.resolve(import.meta.dirname, "fixtures/several-instances-tools.mjs");
/** One conversation: its first run writes two gated notes; its second waits a long while (and is stopped). */
const TURNS = [
  {
    text: "I will write both notes.",
    calls: [
      { name: "write_note", arguments: { file: "alpha.txt", text: "first note" } },
      { name: "write_note", arguments: { file: "beta.txt", text: "second note" } },
    ],
  },
  { text: "Both notes are written." },
  { text: "Waiting now.", calls: [{ name: "wait_a_while", arguments: { seconds: 60 } }] },
  { text: "Never reached: the run is stopped first." },
];

let dir: string;
let db: string | undefined;
let toolLog: string;
let a: ServeProcess;
let b: ServeProcess;
let browser: Browser;
/** The conversation of the first test, which the second continues. */
let conversationOfFirstTest: string;

const ran = (): Array<{ tool: string; args: Record<string, unknown>; pid?: number }> =>
  existsSync(toolLog)
    ? readFileSync(toolLog, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line))
    : [];

const card = (page: Page, file: string): Locator =>
  page.getByRole("group", { name: "write_note", exact: true }).filter({ hasText: file });

/** A new chat on `serve`'s page with the prompt sent; resolves once both gated calls wait for a decision. */
async function startGatedRun(page: Page, serve: ServeProcess, prompt: string) {
  await page.goto(`${serve.url}/`);
  await page.getByRole("textbox", { name: "Message" }).fill(prompt);
  await page.getByRole("button", { name: "Send" }).click();
  await until("the conversation's page", () => /\/chat\/conv_/.test(page.url()));
  await phaseOf(card(page, "alpha.txt"), "awaiting-approval");
  await phaseOf(card(page, "beta.txt"), "awaiting-approval");
  const conversationId = decodeURIComponent(page.url().split("/chat/")[1] ?? "");
  const runId = (await page.locator("[data-run-id]").last().getAttribute("data-run-id")) as string;
  return { runId, conversationId };
}

const available = chromiumAvailable() && postgresUrl !== null;

describe.skipIf(!available)(
  `web UI in Chromium on two serve instances sharing PostgreSQL${postgresUrl ? "" : ` — ${postgresMissing}`}`,
  { timeout: 180_000 },
  () => {
    beforeAll(async () => {
      dir = mkdtempSync(path.join(tmpdir(), "tb-web-instances-"));
      toolLog = path.join(dir, "tool-calls.jsonl");
      writeFileSync(
        path.join(dir, "turns.jsonl"),
        `${TURNS.map((turn) => JSON.stringify(turn)).join("\n")}\n`,
      );
      db = await createDatabase();
      const env = { TOOLBRIDGE_MODEL: `replay:${path.join(dir, "turns.jsonl")}`, TB_WEB_TOOL_LOG: toolLog };
      [a, b] = await Promise.all([
        startServe(["--db", db, "--tools-module", TOOLS], { cwd: dir, env }),
        startServe(["--db", db, "--tools-module", TOOLS], { cwd: dir, env }),
      ]);
      browser = await launchChromium();
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      await Promise.all([a?.stop(), b?.stop()]);
      if (db) await dropDatabase(db);
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it("B's pending list shows the calls of a run A drives; decided on B, A's cards follow, the approved call runs once and both pages show the run finished", async () => {
      const onA = await openPage(browser, `${a.url}/`);
      const onB = await openPage(browser, `${b.url}/runs`);
      await until("B's empty list", () =>
        onB.page.getByRole("button", { name: "0 pending approvals" }).isVisible(),
      );

      const { runId, conversationId } = await startGatedRun(onA.page, a, "write two notes");
      // The page on B was opened before the run existed: its header follows the database, not B's own runs.
      await until("B's header to count A's calls", () =>
        onB.page.getByRole("button", { name: "2 pending approvals" }).isVisible(),
      );
      // B's Runs page was read before the run existed: it follows the pending feed, listing A's run
      // as paused with its two calls waiting (it said "No run matches." until reloaded by hand).
      const runRow = onB.page.locator(".runs-table tbody tr").filter({ hasText: runId });
      await until("A's run on B's Runs page", async () =>
        /paused[\s\S]*0 \+ 2 waiting/.test(
          (await runRow.textContent({ timeout: 1000 }).catch(() => "")) ?? "",
        ),
      );
      await screenshot(onB.page, "several-instances-b-runs-light");
      await onB.page.getByRole("button", { name: "2 pending approvals" }).click();
      const tray = onB.page.getByRole("dialog", { name: "Pending approvals" });
      await until("A's run in B's list", () => tray.getByText(runId).isVisible());
      await expect(tray.textContent()).resolves.toContain('"file": "alpha.txt"');
      await expect(tray.textContent()).resolves.toContain('"text": "second note"');
      await screenshot(onB.page, "several-instances-b-pending-light");
      expect((await seriousViolations(onB.page)).map((v) => v.id)).toEqual([]);

      // One call approved on B: A's card shows it approved (who decided), the other still waits, nothing ran yet.
      const trayCard = (file: string) =>
        tray.getByRole("group", { name: "write_note", exact: true }).filter({ hasText: file });
      await trayCard("alpha.txt").getByRole("button", { name: "Approve", exact: true }).click();
      await phaseOf(card(onA.page, "alpha.txt"), "approved");
      await expect(card(onA.page, "alpha.txt").textContent()).resolves.toMatch(/Approved by api/);
      expect(await card(onA.page, "beta.txt").getAttribute("data-phase")).toBe("awaiting-approval");
      await until("one left on B", () => tray.getByText(/^1 pending approval across 1 run/).isVisible());
      expect(ran()).toEqual([]);

      // The second too: the run resumes (on whichever instance claims it) and finishes.
      await trayCard("beta.txt").getByRole("button", { name: "Approve", exact: true }).click();
      await until("B's list to empty", () => tray.getByText("Nothing waits for a decision.").isVisible());
      await phaseOf(card(onA.page, "alpha.txt"), "done");
      await phaseOf(card(onA.page, "beta.txt"), "done");
      await until("the answer on A", () => onA.page.getByText("Both notes are written.").isVisible());
      // Each approved call ran once, with the model's arguments — counted on the tool's side.
      expect(ran()).toEqual([
        { tool: "write_note", args: { file: "alpha.txt", text: "first note" } },
        { tool: "write_note", args: { file: "beta.txt", text: "second note" } },
      ]);
      await onB.page.keyboard.press("Escape");
      await until("B's header to settle", () =>
        onB.page.getByRole("button", { name: "0 pending approvals" }).isVisible(),
      );

      // The same run on B's pages: the conversation with the answer and both cards done, the run page finished.
      await onB.page.goto(`${b.url}/chat/${encodeURIComponent(conversationId)}`);
      await phaseOf(card(onB.page, "alpha.txt"), "done");
      await phaseOf(card(onB.page, "beta.txt"), "done");
      await until("the answer on B", () => onB.page.getByText("Both notes are written.").isVisible());
      await screenshot(onB.page, "several-instances-b-finished-light");
      await onB.page.goto(`${b.url}/runs/${encodeURIComponent(runId)}`);
      await until("the run finished on B's Runs page", async () =>
        /approved by api/.test((await onB.page.locator(".run-rows").textContent()) ?? ""),
      );
      const view = await json<{ status: string; answer: string }>(`${b.url}/api/runs/${runId}`);
      expect(view).toMatchObject({ status: "finished", answer: "Both notes are written." });
      expect(ran()).toHaveLength(2);
      expect(onA.errors).toEqual([]);
      expect(onB.errors).toEqual([]);
      conversationOfFirstTest = conversationId;
      await onA.context.close();
      await onB.context.close();
    });

    it("Stop on B's page stops a run that A drives: both pages show it stopped, and the tool is not run again", async () => {
      writeFileSync(toolLog, "");
      const chat = (serve: ServeProcess) =>
        `${serve.url}/chat/${encodeURIComponent(conversationOfFirstTest)}`;
      const onA = await openPage(browser, chat(a));
      // The conversation is on the page (as a person sees it) before the next message goes into it.
      await until("the first run's answer on A", () =>
        onA.page.getByText("Both notes are written.").isVisible(),
      );
      await onA.page.getByRole("textbox", { name: "Message" }).fill("now wait a while");
      await onA.page.getByRole("button", { name: "Send" }).click();
      const waiting = (page: Page) => page.getByRole("group", { name: "wait_a_while", exact: true });
      // A started the run and runs its tool (no approval needed): A drives it.
      await until("the tool to start", () => ran().length === 1, 30_000);
      expect(ran()).toEqual([{ tool: "wait_a_while", args: { seconds: 60 }, pid: a.child.pid }]);
      await phaseOf(waiting(onA.page), "running");

      const onB = await openPage(browser, chat(b));
      await phaseOf(waiting(onB.page), "running");
      await onB.page.getByRole("button", { name: "Stop" }).click();
      for (const page of [onB.page, onA.page]) {
        await until("the stop reason", () => page.getByText("Stopped: cancelled.").isVisible());
        expect(await waiting(page).getAttribute("data-phase")).not.toBe("running");
        expect(await page.getByRole("button", { name: "Stop" }).count()).toBe(0);
      }
      await screenshot(onB.page, "several-instances-b-stopped-light");
      const runId = (await onB.page.locator("[data-run-id]").last().getAttribute("data-run-id")) as string;
      expect(await json(`${b.url}/api/runs/${runId}`)).toMatchObject({
        status: "stopped",
        stopReason: "aborted",
      });
      // Nobody went on with the run: the tool started once, the model's next turn never came.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(ran()).toHaveLength(1);
      expect(await onA.page.getByText("Never reached").count()).toBe(0);
      expect(onA.errors).toEqual([]);
      expect(onB.errors).toEqual([]);
      await onA.context.close();
      await onB.context.close();
    });
  },
);
