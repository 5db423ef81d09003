/**
 * The web UI's approvals, Tools page and Runs page in Debian's Chromium against the real `toolbridge serve` (built
 * bin): a replayed model that asks for two gated `write_note` calls per conversation, the tools of
 * fixtures/web-tools.mjs (which record what they receive), the CLI's `runs approve` and `toolbridge run` on the same
 * SQLite file. One serve and one browser for the file.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/run-cli.js";
import { type ServeProcess, startServe } from "../helpers/serve-process.js";
import {
  type AxeViolation,
  checkPageEverywhere,
  chromiumAvailable,
  launchChromium,
  openPage,
  screenshot,
  seriousViolations,
} from "./helpers/browser.js";
import { json, phaseOf, until } from "./helpers/wait.js";

const TOOLS = path.resolve(import.meta.dirname, "fixtures/web-tools.mjs");
const TURNS = [
  {
    text: "I will write both notes.",
    calls: [
      { name: "write_note", arguments: { file: "alpha.txt", text: "first note" } },
      { name: "write_note", arguments: { file: "beta.txt", text: "second note" } },
    ],
  },
  { text: "Done with the notes." },
];

interface Pending {
  runId: string;
  callId: string;
  name: string;
  arguments: Record<string, unknown>;
  startedBy: string;
}

let dir: string;
let db: string;
let toolLog: string;
let serve: ServeProcess;
let browser: Browser;
/** The run of the first test: one call approved in another tab, one denied with a reason. */
let decidedRunId: string;

const env = () => ({ TOOLBRIDGE_MODEL: `replay:${path.join(dir, "turns.jsonl")}`, TB_WEB_TOOL_LOG: toolLog });
const ran = (): Array<{ tool: string; args: Record<string, unknown> }> =>
  existsSync(toolLog)
    ? readFileSync(toolLog, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line))
    : [];
const pending = () => json<{ data: Pending[] }>(`${serve.url}/api/approvals`).then((r) => r.data);

const card = (page: Page, file: string): Locator =>
  page.getByRole("group", { name: "write_note", exact: true }).filter({ hasText: file });

/** A new chat with the prompt sent; resolves once both gated calls wait for a decision. */
async function startGatedRun(page: Page, prompt: string): Promise<{ runId: string; conversationId: string }> {
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

const available = chromiumAvailable();

describe.skipIf(!available)("web UI in Chromium: approvals, tools, runs", { timeout: 180_000 }, () => {
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "tb-web-approvals-"));
    db = path.join(dir, "web.db");
    toolLog = path.join(dir, "tool-calls.jsonl");
    writeFileSync(path.join(dir, "turns.jsonl"), `${TURNS.map((turn) => JSON.stringify(turn)).join("\n")}\n`);
    serve = await startServe(["--db", db, "--tools-module", TOOLS], { cwd: dir, env: env() });
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("shows each gated call with its full arguments; two calls decided separately (one in another tab) both take effect; a denial's reason reaches the model", async () => {
    const { context, page, errors } = await openPage(browser, `${serve.url}/`);
    const { runId, conversationId } = await startGatedRun(page, "write two notes");
    const alpha = card(page, "alpha.txt");
    const beta = card(page, "beta.txt");
    // The complete operation: tool, source, why it asks, the whole arguments.
    await expect(alpha.textContent()).resolves.toContain('"text": "first note"');
    await expect(alpha.textContent()).resolves.toContain("marked destructive");
    await expect(alpha.textContent()).resolves.toContain("tools module");
    await until("the header's count", () =>
      page.getByRole("button", { name: "2 pending approvals" }).isVisible(),
    );

    // Decided in a second tab: this page's card follows.
    const other = await context.newPage();
    await other.goto(`${serve.url}/chat/${conversationId}`);
    await card(other, "alpha.txt").getByRole("button", { name: "Approve", exact: true }).click();
    // Approved, and held until the step's other call is decided too (the run resumes once none is pending).
    await phaseOf(alpha, "approved");
    await expect(alpha.textContent()).resolves.toMatch(/Approved by api/);
    expect(await beta.getAttribute("data-phase")).toBe("awaiting-approval");
    expect(ran()).toEqual([]);
    await other.close();

    await beta.getByRole("button", { name: "Deny", exact: true }).click();
    await beta.getByRole("textbox", { name: /Reason/ }).fill("beta stays empty");
    await beta.getByRole("button", { name: "Deny", exact: true }).click();
    await phaseOf(beta, "denied");
    await phaseOf(alpha, "done");
    await until("the answer", () => page.getByText("Done with the notes.").isVisible());
    await expect(beta.textContent()).resolves.toContain("beta stays empty");

    expect(ran()).toEqual([{ tool: "write_note", args: { file: "alpha.txt", text: "first note" } }]);
    // What the model's next turn was given: the denial, with the person's reason.
    const conversation = await json<{ messages: Array<{ role: string; name?: string; result?: unknown }> }>(
      `${serve.url}/api/conversations/${conversationId}`,
    );
    const denial = conversation.messages
      .filter((m) => m.role === "tool")
      .map((m) => JSON.stringify(m.result));
    expect(denial.some((text) => text.includes("beta stays empty"))).toBe(true);
    expect((await json<{ status: string }>(`${serve.url}/api/runs/${runId}`)).status).toBe("finished");
    decidedRunId = runId;
    expect(errors).toEqual([]);
    await context.close();
  });

  it("edited arguments: the schema's rejection shows in the form and sends nothing; valid edits run with them; a reload mid-approval shows the same calls", async () => {
    writeFileSync(toolLog, "");
    const { context, page, errors } = await openPage(browser, `${serve.url}/`);
    const { runId } = await startGatedRun(page, "write two notes again");
    const before = (await pending()).filter((call) => call.runId === runId);
    expect(before.map((call) => call.arguments.file)).toEqual(["alpha.txt", "beta.txt"]);

    await page.reload();
    await phaseOf(card(page, "alpha.txt"), "awaiting-approval");
    await phaseOf(card(page, "beta.txt"), "awaiting-approval");
    await until("the header's count", () =>
      page.getByRole("button", { name: "2 pending approvals" }).isVisible(),
    );

    await card(page, "alpha.txt").getByRole("button", { name: "Edit arguments" }).click();
    const dialog = page.getByRole("dialog", { name: /Edit the arguments of write_note/ });
    const file = dialog.getByRole("textbox", { name: /file/ });
    await file.fill("../../etc/passwd");
    await dialog.getByRole("button", { name: "Approve with these arguments" }).click();
    await until("the schema's error", () =>
      dialog
        .getByText(/must match pattern/)
        .first()
        .isVisible(),
    );
    await screenshot(page, "approvals-edit-rejected-light");
    // Nothing was sent: the call still waits, with the model's arguments.
    expect((await pending()).find((call) => call.callId === before[0]?.callId)?.arguments).toEqual({
      file: "alpha.txt",
      text: "first note",
    });
    await file.fill("edited.txt");
    await dialog.getByRole("button", { name: "Approve with these arguments" }).click();
    await until("the dialog to close", async () => !(await dialog.isVisible()));
    await phaseOf(card(page, "edited.txt"), "approved");
    await expect(card(page, "edited.txt").textContent()).resolves.toContain("with edited arguments");
    expect(ran()).toEqual([]);

    await card(page, "beta.txt").getByRole("button", { name: "Approve", exact: true }).click();
    await phaseOf(card(page, "edited.txt"), "done");
    await phaseOf(card(page, "beta.txt"), "done");
    await until("the answer", () => page.getByText("Done with the notes.").isVisible());
    // The tool received the edited arguments, not the model's.
    expect(ran()).toEqual([
      { tool: "write_note", args: { file: "edited.txt", text: "first note" } },
      { tool: "write_note", args: { file: "beta.txt", text: "second note" } },
    ]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("a run started by `toolbridge run` that pauses appears in an open page's pending list; `runs approve` and `runs deny` there update the page", async () => {
    writeFileSync(toolLog, "");
    const { context, page, errors } = await openPage(browser, `${serve.url}/runs`);
    await until("no pending", () => page.getByRole("button", { name: "0 pending approvals" }).isVisible());
    const run = runCli(
      ["run", "write notes from the terminal", "--tools-module", TOOLS, "--db", db, "--json"],
      { cwd: dir, env: env(), timeoutMs: 90_000 },
    );
    expect(run.status, run.stderr).toBe(0);
    const cliRunId = (JSON.parse(run.stdout) as { runId: string; status: string }).runId;
    await until("the CLI run's calls in the header", () =>
      page.getByRole("button", { name: "2 pending approvals" }).isVisible(),
    );
    await page.getByRole("button", { name: "2 pending approvals" }).click();
    const tray = page.getByRole("dialog", { name: "Pending approvals" });
    await until("the run in the list", () => tray.getByText(cliRunId).isVisible());
    await expect(tray.textContent()).resolves.toContain("started by toolbridge run");
    await expect(tray.textContent()).resolves.toContain('"file": "alpha.txt"');
    await screenshot(page, "pending-approvals-light");
    expect((await seriousViolations(page)).map((v) => v.id)).toEqual([]);

    // Decided in the terminal: the open list follows.
    const calls = (await pending()).filter((c) => c.runId === cliRunId);
    const approve = runCli(
      ["runs", "approve", cliRunId, calls[0]?.callId as string, "--db", db, "--by", "ops-cli"],
      { cwd: dir, env: env(), timeoutMs: 90_000 },
    );
    expect(approve.status, approve.stderr).toBe(0);
    // (The open dialog hides the header from assistive technology: its own summary says the same.)
    await until("one left", () => tray.getByText(/^1 pending approval across 1 run/).isVisible());
    expect(await tray.getByRole("group", { name: "write_note", exact: true }).count()).toBe(1);
    const deny = runCli(
      ["runs", "deny", cliRunId, calls[1]?.callId as string, "--db", db, "--reason", "not now"],
      { cwd: dir, env: env(), timeoutMs: 90_000 },
    );
    expect(deny.status, deny.stderr).toBe(0);
    await until("the list to empty", () => tray.getByText("Nothing waits for a decision.").isVisible());
    await page.keyboard.press("Escape");
    await until("the header's count", () =>
      page.getByRole("button", { name: "0 pending approvals" }).isVisible(),
    );
    // The run's page shows who decided what.
    await page.goto(`${serve.url}/runs/${cliRunId}`);
    await until("the decisions", async () =>
      /approved by ops-cli/.test((await page.locator(".run-rows").textContent()) ?? ""),
    );
    await expect(page.locator(".run-rows").textContent()).resolves.toContain("not now");
    expect(ran()).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('"always allow" runs the next call without a card; back to ask on the Tools page brings the card back; Stop expires what waits', async () => {
    writeFileSync(toolLog, "");
    const { context, page, errors } = await openPage(browser, `${serve.url}/`);
    await startGatedRun(page, "notes, third time");
    await card(page, "alpha.txt").getByRole("button", { name: "Always allow" }).click();
    await phaseOf(card(page, "alpha.txt"), "approved");
    // Already asked before the change: the second call still waits for its own decision.
    await card(page, "beta.txt").getByRole("button", { name: "Approve", exact: true }).click();
    await phaseOf(card(page, "alpha.txt"), "done");
    await phaseOf(card(page, "beta.txt"), "done");

    await page.getByRole("button", { name: "New chat" }).first().click();
    await page.getByRole("textbox", { name: "Message" }).fill("notes without asking");
    await page.getByRole("button", { name: "Send" }).click();
    await phaseOf(card(page, "alpha.txt"), "done");
    await phaseOf(card(page, "beta.txt"), "done");
    expect(ran()).toHaveLength(4);

    await page.getByRole("link", { name: "Tools" }).click();
    const item = page.getByRole("article", { name: "write_note" });
    await until("the setting's origin", () => item.getByText(/set here/).isVisible());
    await item.getByRole("button", { name: "Reset to ask" }).click();
    await until("the default again", () => item.getByText(/the tool's default/).isVisible());

    await page.getByRole("link", { name: "Chat" }).click();
    await page.getByRole("button", { name: "New chat" }).first().click();
    await page.getByRole("textbox", { name: "Message" }).fill("ask me again");
    await page.getByRole("button", { name: "Send" }).click();
    await phaseOf(card(page, "alpha.txt"), "awaiting-approval");
    await page.getByRole("button", { name: "Stop" }).click();
    await phaseOf(card(page, "alpha.txt"), "expired");
    await phaseOf(card(page, "beta.txt"), "expired");
    await until("the stop reason", () => page.getByText("Stopped: cancelled.").isVisible());
    expect(await card(page, "alpha.txt").getByRole("button", { name: "Approve", exact: true }).count()).toBe(
      0,
    );
    expect(ran()).toHaveLength(4);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("Tools page: the form for $defs/$ref, an enum and an array of objects is drawn, refuses invalid input and calls the tool; a tool switched off leaves the next run and /mcp", async () => {
    writeFileSync(toolLog, "");
    const { context, page, errors } = await openPage(browser, `${serve.url}/tools`);
    await page.getByRole("searchbox").fill("plan_trip");
    const item = page.getByRole("article", { name: "plan_trip" });
    await item.getByRole("button", { name: "plan_trip details" }).click();
    const form = item.getByRole("group", { name: "Test call of plan_trip" });
    await until("the form", () => form.isVisible());
    // The enum as a choice, the $ref'd object inside the array as fields.
    expect(await form.getByRole("combobox", { name: /transport/ }).count()).toBe(1);
    await until("a stop's fields (minItems 1)", () =>
      form.getByRole("textbox", { name: /city/ }).isVisible(),
    );
    await form.getByRole("button", { name: "Call plan_trip" }).click();
    await until("the errors", () =>
      form
        .getByText(/must have required property|must NOT have fewer than/)
        .first()
        .isVisible(),
    );
    expect(ran()).toEqual([]);

    await form.getByRole("textbox", { name: /traveller/ }).fill("Ada");
    await form.getByRole("combobox", { name: /transport/ }).selectOption("train");
    await form.getByRole("textbox", { name: /city/ }).fill("Lyon");
    await form.getByRole("spinbutton", { name: /nights/ }).fill("2");
    await form.getByRole("button", { name: "Call plan_trip" }).click();
    const result = item.getByRole("region", { name: "Result of plan_trip" });
    await until("the result", () => result.getByText("Ada goes by train through Lyon: 2 nights").isVisible());
    expect(ran()).toEqual([
      {
        tool: "plan_trip",
        args: { traveller: "Ada", transport: "train", stops: [{ city: "Lyon", nights: 2 }] },
      },
    ]);

    // Another tab's switch shows here without a reload (the server pushes tools/list_changed).
    await page.getByRole("searchbox").fill("legacy_lookup");
    const other = await context.newPage();
    await other.goto(`${serve.url}/tools?q=legacy_lookup`);
    await other.getByRole("switch", { name: "legacy_lookup enabled" }).click();
    await until(
      "the other tab's change",
      async () =>
        (await page.getByRole("switch", { name: "legacy_lookup enabled" }).getAttribute("aria-checked")) ===
        "false",
    );
    await page.getByRole("switch", { name: "legacy_lookup enabled" }).click();
    await until(
      "and back, in the other tab",
      async () =>
        (await other.getByRole("switch", { name: "legacy_lookup enabled" }).getAttribute("aria-checked")) ===
        "true",
    );
    await other.close();

    // Off: gone from /mcp and from the next run's tools (the model's call is refused as unknown).
    await page.getByRole("searchbox").fill("write_note");
    await page.getByRole("switch", { name: "write_note enabled" }).click();
    await until(
      "switched off",
      async () =>
        (await page.getByRole("switch", { name: "write_note enabled" }).getAttribute("aria-checked")) ===
        "false",
    );
    const mcp = new Client({ name: "web-ui-test", version: "1.0.0" });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${serve.url}/mcp`)));
    const names = (await mcp.listTools()).tools.map((tool) => tool.name);
    await mcp.close();
    expect(names).toContain("plan_trip");
    expect(names).not.toContain("write_note");
    await page.getByRole("link", { name: "Chat" }).click();
    await page.getByRole("button", { name: "New chat" }).first().click();
    await page.getByRole("textbox", { name: "Message" }).fill("write while it is off");
    await page.getByRole("button", { name: "Send" }).click();
    await phaseOf(card(page, "alpha.txt"), "invalid");
    await expect(card(page, "alpha.txt").textContent()).resolves.toMatch(
      /Unknown tool|not .*available|write_note/,
    );
    expect(ran()).toHaveLength(1);
    await page.getByRole("link", { name: "Tools" }).click();
    await page.getByRole("searchbox").fill("write_note");
    await page.getByRole("switch", { name: "write_note enabled" }).click();
    await until(
      "back on",
      async () =>
        (await page.getByRole("switch", { name: "write_note enabled" }).getAttribute("aria-checked")) ===
        "true",
    );
    expect(errors).toEqual([]);
    await context.close();
  });

  it("works with the keyboard alone: Tab reaches the message box, Enter sends, Tab reaches each Approve, Enter decides", async () => {
    writeFileSync(toolLog, "");
    const { context, page, errors } = await openPage(browser, `${serve.url}/`);
    await page.getByRole("textbox", { name: "Message" }).waitFor();
    await tabTo(page, "Message");
    await page.keyboard.type("only the keyboard");
    await page.keyboard.press("Enter");
    await phaseOf(card(page, "alpha.txt"), "awaiting-approval");
    await phaseOf(card(page, "beta.txt"), "awaiting-approval");
    await tabTo(page, "Approve");
    await page.keyboard.press("Enter");
    await phaseOf(card(page, "alpha.txt"), "approved");
    await tabTo(page, "Approve");
    await page.keyboard.press("Enter");
    await phaseOf(card(page, "beta.txt"), "done");
    expect(ran()).toHaveLength(2);
    await tabTo(page, "0 pending approvals");
    await page.keyboard.press("Enter");
    await page.getByRole("dialog", { name: "Pending approvals" }).waitFor();
    await page.keyboard.press("Escape");
    await until("closed", async () => (await page.getByRole("dialog").count()) === 0);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("Runs page: filtered by status and tool, a run's steps with decisions (who, when, reason), export as JSON", async () => {
    const { context, page, errors } = await openPage(browser, `${serve.url}/runs?tool=plan_trip`);
    await until("the filtered list", () => page.getByText(/No run matches/).isVisible());
    await page.goto(`${serve.url}/runs?tool=write_note&status=finished`);
    await until("the first test's run", () => page.getByRole("link", { name: decidedRunId }).isVisible());
    await page.getByRole("link", { name: decidedRunId }).click();
    await until("the steps", () => page.getByRole("heading", { name: /Step 1/ }).isVisible());
    const calls = page.locator("details.call-row");
    await until("the calls", async () => (await calls.count()) >= 2);
    const text = await page.locator(".run-rows").textContent();
    expect(text).toMatch(/approved by api at/);
    expect(text).toMatch(/denied by api at .*beta stays empty/);
    const download = page.waitForEvent("download");
    await page.getByRole("button", { name: "Export as JSON" }).click();
    const file = await (await download).path();
    const exported = JSON.parse(readFileSync(file as string, "utf8")) as {
      run: { runId: string };
      events: unknown[];
    };
    expect(exported.run.runId).toMatch(/^run_/);
    expect(exported.events.length).toBeGreaterThan(5);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("every page, light and dark and at 390 px: screenshots, and no serious or critical axe violation", async () => {
    // A conversation with two calls waiting, for the chat's busiest state.
    const { context, page } = await openPage(browser, `${serve.url}/`);
    const { conversationId, runId } = await startGatedRun(page, "notes for the screenshots");
    await context.close();
    const found: Record<string, Record<string, AxeViolation[]>> = {};
    found.chat = await checkPageEverywhere(
      browser,
      `${serve.url}/chat/${conversationId}`,
      "chat-approvals",
      async (p) => {
        await phaseOf(card(p, "alpha.txt"), "awaiting-approval");
      },
    );
    found.tools = await checkPageEverywhere(browser, `${serve.url}/tools`, "tools", async (p) => {
      await p.getByRole("button", { name: "plan_trip details" }).click();
      await p.getByRole("group", { name: "Test call of plan_trip" }).waitFor();
    });
    found.runs = await checkPageEverywhere(browser, `${serve.url}/runs`, "runs", async (p) => {
      await p.getByRole("table").waitFor();
    });
    found.run = await checkPageEverywhere(browser, `${serve.url}/runs/${runId}`, "run-detail", async (p) => {
      await p.getByRole("heading", { name: /Step 1/ }).waitFor();
    });
    found.edit = await checkPageEverywhere(
      browser,
      `${serve.url}/chat/${conversationId}`,
      "edit-arguments",
      async (p) => {
        await card(p, "alpha.txt").getByRole("button", { name: "Edit arguments" }).click();
        await p.getByRole("dialog").getByRole("button", { name: "Approve with these arguments" }).waitFor();
      },
    );
    expect(found).toEqual(
      Object.fromEntries(Object.keys(found).map((page) => [page, { light: [], dark: [], "390": [] }])),
    );
  });
});

/** Press Tab until the focused element's accessible name is `name` (its aria-label, label or text). */
async function tabTo(page: Page, name: string): Promise<void> {
  for (let i = 0; i < 120; i++) {
    await page.keyboard.press("Tab");
    const focused = (await page.evaluate(`(() => {
      const el = document.activeElement;
      if (!el) return "";
      return (el.getAttribute("aria-label") || (el.labels && el.labels[0] ? el.labels[0].textContent : "") || el.textContent || "").trim();
    })()`)) as string;
    if (focused === name) return;
  }
  throw new Error(`Tab never reached "${name}"`);
}
