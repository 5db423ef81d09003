/**
 * One approval gate, every surface (issue 29, item 1): the same cases — a tool whose policy is always / ask / never,
 * one switched off, one that does not exist; each with and without a person's confirmation — run against every
 * surface that runs tools, in the style of Hono's `common.case.test.ts`: a surface is a row of the table, and a new
 * surface is a new row, not a new test. Whether a tool ran is read from the disk (the fixture tools append to a log),
 * whatever process was asked. Real parts throughout: an SQLite file with the tool settings a person made through
 * `serve`, the HTTP server on loopback, the SDK's MCP clients of both eras over HTTP and over `toolbridge mcp`'s
 * stdio, the `ws` client, and the CLI in fresh processes.
 *
 * On main before the gate, the /ws row failed: `tools/call` ran gate_ask without `confirm` and took no `confirm`.
 *
 * A second table: a dry run, on every surface that offers one, needs no confirmation — nothing changes — and runs
 * nothing that changes anything, nor anything whose policy asks. Before the AI SDK's tools asked CallGate, a dry run
 * there still asked for approval of a read-only tool whose policy asks.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from "@modelcontextprotocol/client";
import { StdioClientTransport as StdioV2 } from "@modelcontextprotocol/client/stdio";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as StdioV1 } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as HttpV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { generateText, type ModelMessage, stepCountIs } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/agent/create-agent.js";
import type { RunView } from "../../src/agent/run-view.js";
import { toAiSdkTools } from "../../src/ai-sdk/to-ai-sdk-tools.js";
import { createReplayModel, type ReplayTurn } from "../../src/models/replay-model.js";
import { RunService } from "../../src/server/runs-api/run-service.js";
import { type RunningServer, startServer } from "../../src/server/start-server.js";
import { ToolSettings } from "../../src/server/tools-api/tool-settings.js";
import { SqliteConversationEraser } from "../../src/store/sqlite-conversation-eraser.js";
import { SqliteRunEventLog } from "../../src/store/sqlite-run-event-log.js";
import { SqliteStore } from "../../src/store/sqlite-store.js";
import { SqliteToolSettingsStore } from "../../src/store/sqlite-tool-settings-store.js";
import type { AnyToolDefinition } from "../../src/tools/tool-definition.js";
import { ToolExecutor } from "../../src/tools/tool-executor.js";
import { ToolRegistry } from "../../src/tools/tool-registry.js";
import { CLI_MAIN, REPO } from "../agent/cli-helpers.js";
import { scriptedModel } from "../ai-sdk/helpers/scripted-model.js";
import { tools as gateTools } from "../fixtures/gate/gate-tools.mjs";
import { runCliAsync } from "../helpers/run-cli.js";
import { waitFor } from "../helpers/wait-for.js";
import { TestSocket } from "../server/runs/helpers.js";

const FIXTURE_TOOLS = path.join(REPO, "test/fixtures/gate/gate-tools.mjs");

/** `described`: the call was let through as a dry run and reported what it would do; nothing ran. */
type Outcome = "ran" | "asked" | "refused" | "described";
type Tool = "gate_always" | "gate_ask" | "gate_never" | "gate_off" | "gate_missing";
type DryRunTool = Tool | "gate_ask_read";

/** The contract: what every surface must do, by the tool's effective settings and whether a person confirmed. */
const EXPECTED: Record<Tool, { unconfirmed: Outcome; confirmed: Outcome }> = {
  gate_always: { unconfirmed: "ran", confirmed: "ran" },
  gate_ask: { unconfirmed: "asked", confirmed: "ran" },
  gate_never: { unconfirmed: "refused", confirmed: "refused" },
  gate_off: { unconfirmed: "refused", confirmed: "refused" },
  gate_missing: { unconfirmed: "refused", confirmed: "refused" },
};

/**
 * A dry run, unconfirmed (`confirmed`: on a surface whose call is a person's own command): no question is asked; tools
 * with side effects, and read-only ones whose policy asks, report what they would do; the rest is refused as ever.
 */
const EXPECTED_DRY_RUN: Record<DryRunTool, { unconfirmed: Outcome; confirmed: Outcome }> = {
  gate_always: { unconfirmed: "described", confirmed: "described" },
  gate_ask: { unconfirmed: "described", confirmed: "described" },
  gate_ask_read: { unconfirmed: "described", confirmed: "ran" },
  gate_never: { unconfirmed: "refused", confirmed: "refused" },
  gate_off: { unconfirmed: "refused", confirmed: "refused" },
  gate_missing: { unconfirmed: "refused", confirmed: "refused" },
};

/** A result's text tells a dry run's report from a run. */
const ranOrDescribed = (text: string): Outcome => (text.includes("[dry run]") ? "described" : "ran");

interface Surface {
  name: string;
  /**
   * `explicit`: the caller says whether a person confirmed (confirm: true, an elicitation answer, a decision, a
   * prompt). `implied`: the surface is a person's own command naming the call (`toolbridge tools call`), which is
   * their confirmation: it is expected to behave as confirmed in both columns.
   */
  confirmation: "explicit" | "implied";
  open(): Promise<void>;
  /** Make the call; "asked" means a person's approval was asked for (and, unconfirmed, not given): nothing ran. */
  call(tool: Tool, mark: string, confirmed: boolean): Promise<Outcome>;
  /** The same call as a dry run, unconfirmed, where the surface offers one. */
  dryRun?(tool: DryRunTool, mark: string): Promise<Outcome>;
  close(): Promise<void>;
}

let dir: string;
let log: string;
let serverDb: string;
let cliDb: string;
let server: RunningServer;
let store: SqliteStore;
let service: RunService;
let registry: ToolRegistry;
let executor: ToolExecutor;
let settings: ToolSettings;
/** Replay turns of the Runs API row, by model name (one model per case). */
const caseModels = new Map<string, ReplayTurn[]>();

/** The settings a person made through `serve` (PATCH /api/tools/{name}), in a database. */
async function seedSettings(file: string): Promise<void> {
  const seeding = new SqliteStore(file);
  try {
    const at = new Date().toISOString();
    const put = (s: Parameters<SqliteToolSettingsStore["put"]>[0]) =>
      new SqliteToolSettingsStore(seeding.db).put(s);
    await put({ name: "gate_always", policy: "always", updatedAt: at });
    await put({ name: "gate_never", policy: "never", updatedAt: at });
    await put({ name: "gate_off", enabled: false, updatedAt: at });
    await put({ name: "gate_ask_read", policy: "ask", updatedAt: at });
  } finally {
    await seeding.close();
  }
}

const ran = (mark: string) =>
  readFileSync(log, "utf8")
    .split("\n")
    .some((line) => line.endsWith(` ${mark}`));
const turnsFor = (tool: DryRunTool, mark: string): ReplayTurn[] => [
  { text: "Calling it.", calls: [{ name: tool, arguments: { mark } }] },
  { text: "Done." },
  { text: "Anything else?" },
];

/** How a run's only call ended, from the run view every agent surface returns. */
function outcomeOfRun(view: RunView): Outcome {
  const call = view.steps.flatMap((step) => step.calls)[0];
  if (!call) throw new Error(`the run made no call: ${JSON.stringify(view)}`);
  if (call.approval?.decision === "pending") return "asked";
  if (call.approval?.decision === "denied" || call.result?.isError) return "refused";
  return call.result ? ranOrDescribed(JSON.stringify(call.result)) : "refused";
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "tb-gate-surfaces-"));
  log = path.join(dir, "ran.log");
  writeFileSync(log, "");
  process.env.TB_GATE_LOG = log;
  serverDb = path.join(dir, "server.db");
  cliDb = path.join(dir, "cli.db");
  await seedSettings(serverDb);
  await seedSettings(cliDb);

  store = new SqliteStore(serverDb);
  registry = new ToolRegistry();
  registry.registerAll(gateTools as AnyToolDefinition[]);
  settings = await ToolSettings.load({ registry, store: new SqliteToolSettingsStore(store.db) });
  executor = new ToolExecutor(registry);
  service = new RunService({
    models: {
      names: () => ["replay", ...caseModels.keys()],
      defaultName: "replay",
      get: async (name) => createReplayModel(caseModels.get(name ?? "") ?? [{ text: "Hi." }], { id: name }),
    },
    store,
    events: new SqliteRunEventLog(store.db),
    executor,
    approval: settings.approval,
    conversations: new SqliteConversationEraser(store.db),
  });
  server = await startServer({ registry, executor, port: 0, toolsApi: { settings }, runs: { service } });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await service?.close();
  await store?.close();
  delete process.env.TB_GATE_LOG;
  rmSync(dir, { recursive: true, force: true });
});

/** A library run (`createAgent`, a dry run or not), approved and resumed when the case confirms. */
async function agentCall(
  tool: DryRunTool,
  mark: string,
  confirmed: boolean,
  dryRun: boolean,
): Promise<Outcome> {
  const agent = createAgent({
    model: createReplayModel(turnsFor(tool, mark)),
    tools: executor,
    store,
    approval: settings.approval,
    dryRun,
  });
  let view = await agent.run("go").result;
  if (view.status === "paused" && confirmed) {
    await agent.approve(view.runId, view.pending[0]?.callId as string, { by: "tester" });
    view = await agent.resume(view.runId).result;
  }
  return outcomeOfRun(view);
}

/** POST /api/tools/{name}/call with `confirm` or `dryRun` as given. */
async function toolsApiCall(
  tool: DryRunTool,
  mark: string,
  flags: Record<string, boolean>,
): Promise<Outcome> {
  const response = await fetch(`${server.url}/api/tools/${tool}/call`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ arguments: { mark }, ...flags }),
  });
  const body = (await response.json()) as CallToolResult & { error?: { code: string } };
  if (response.status === 200) return body.isError ? "refused" : ranOrDescribed(JSON.stringify(body.content));
  return body.error?.code === "approval_required" ? "asked" : "refused";
}

/** `toolbridge tools call <tool>` in a fresh process: the person's own command names the call. */
async function cliToolsCall(tool: DryRunTool, mark: string, flags: string[]): Promise<Outcome> {
  const result = await runCliAsync([
    "tools",
    "call",
    tool,
    "--args",
    JSON.stringify({ mark }),
    "--tools-module",
    FIXTURE_TOOLS,
    "--db",
    cliDb,
    ...flags,
  ]);
  if (result.status === 0) return ranOrDescribed(result.stdout);
  expect(result.status, result.stderr).toBe(2);
  expect(result.stderr).toMatch(/nothing ran|Unknown tool/);
  return "refused";
}

/** `toolbridge run` on a replayed model, then `runs approve` and `runs resume` when the case confirms. */
async function cliRun(tool: DryRunTool, mark: string, confirmed: boolean, flags: string[]): Promise<Outcome> {
  const turns = path.join(dir, `${mark}.jsonl`);
  writeFileSync(
    turns,
    turnsFor(tool, mark)
      .map((turn) => JSON.stringify(turn))
      .join("\n"),
  );
  const common = ["--tools-module", FIXTURE_TOOLS, "--db", cliDb];
  const started = await runCliAsync([
    "run",
    "go",
    "--json",
    "--model",
    `replay:${turns}`,
    ...common,
    ...flags,
  ]);
  expect(started.status, started.stderr).toBe(0);
  let view = JSON.parse(started.stdout) as RunView;
  if (view.status === "paused" && confirmed) {
    const callId = view.pending[0]?.callId as string;
    expect((await runCliAsync(["runs", "approve", view.runId, callId, "--db", cliDb])).status).toBe(0);
    const resumed = await runCliAsync(["runs", "resume", view.runId, "--json", "--db", cliDb]);
    expect(resumed.status, resumed.stderr).toBe(0);
    view = JSON.parse(resumed.stdout) as RunView;
  }
  return outcomeOfRun(view);
}

/**
 * `generateText` over `toAiSdkTools` (a scripted AI SDK model makes the call): an `ask` call comes back as the SDK's
 * approval request, and runs in a second `generateText` with the person's approving response.
 */
async function aiSdkCall(
  tool: DryRunTool,
  mark: string,
  confirmed: boolean,
  dryRun: boolean,
): Promise<Outcome> {
  const tools = toAiSdkTools(executor, { approval: settings.approval, dryRun });
  const scripted = scriptedModel([{ calls: [{ toolName: tool, input: { mark } }] }, "Done."]);
  const messages: ModelMessage[] = [{ role: "user", content: "go" }];
  const result = await generateText({ model: scripted.model, tools, messages, stopWhen: stepCountIs(2) });
  const request = result.content.find((part) => part.type === "tool-approval-request");
  if (request) {
    if (!confirmed) return "asked";
    messages.push(...result.response.messages, {
      role: "tool",
      content: [{ type: "tool-approval-response", approvalId: request.approvalId, approved: true }],
    });
    await generateText({ model: scripted.model, tools, messages, stopWhen: stepCountIs(2) });
  }
  // What the model was sent back for the call: the result as the SDK hands it on (error-text when it did not run).
  const sent = scripted.calls
    .at(-1)
    ?.prompt.flatMap((message) => (message.role === "tool" ? message.content : []))
    .find((part) => part.type === "tool-result")?.output;
  if (!sent || sent.type.startsWith("error")) return "refused";
  return ranOrDescribed(JSON.stringify(sent));
}

/** An MCP client of either era that answers the approval question as the case says, counting the questions. */
function mcpSurface(name: string, era: "2025" | "2026", transport: "http" | "stdio"): Surface {
  let client: { callTool(p: { name: string; arguments: Record<string, unknown> }): Promise<unknown> };
  let closeClient: () => Promise<void>;
  let answer: "accept" | "decline" = "decline";
  let asked = 0;
  const respond = () => {
    asked += 1;
    return answer === "accept" ? { action: "accept" as const, content: {} } : { action: "decline" as const };
  };
  return {
    name,
    confirmation: "explicit",
    async open() {
      const url = new URL(`${server.url}/mcp`);
      // The real `toolbridge mcp`, on the same tool settings as the CLI rows.
      const stdio = {
        command: process.execPath,
        args: [CLI_MAIN, "mcp", "--tools-module", FIXTURE_TOOLS, "--db", cliDb],
        cwd: REPO,
        env: { ...(process.env as Record<string, string>), TB_GATE_LOG: log },
        stderr: "ignore" as const,
      };
      if (era === "2025") {
        const v1 = new ClientV1({ name: "gate-table", version: "1" }, { capabilities: { elicitation: {} } });
        v1.setRequestHandler(ElicitRequestSchema, async () => respond());
        await v1.connect(transport === "http" ? new HttpV1(url) : new StdioV1(stdio));
        client = v1;
        closeClient = () => v1.close();
      } else {
        const v2 = new ClientV2(
          { name: "gate-table", version: "1" },
          { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: "2026-07-28" } } },
        );
        v2.setRequestHandler("elicitation/create", async () => respond());
        await v2.connect(transport === "http" ? new HttpV2(url) : new StdioV2(stdio));
        client = v2;
        closeClient = () => v2.close();
      }
    },
    async call(tool, mark, confirmed) {
      answer = confirmed ? "accept" : "decline";
      const before = asked;
      try {
        const result = (await client.callTool({ name: tool, arguments: { mark } })) as { isError?: boolean };
        if (!result.isError) return "ran";
        return asked > before ? "asked" : "refused";
      } catch (error) {
        // Tools this server does not offer (unknown, switched off, `never`) are -32602, as its list says.
        expect(String(error)).toMatch(/Unknown tool/);
        return "refused";
      }
    },
    close: () => closeClient(),
  };
}

const SURFACES: Surface[] = [
  {
    name: "agent (library createAgent)",
    confirmation: "explicit",
    async open() {},
    call: (tool, mark, confirmed) => agentCall(tool, mark, confirmed, false),
    dryRun: (tool, mark) => agentCall(tool, mark, false, true),
    async close() {},
  },
  {
    name: "Runs API (POST /api/runs, decisions over HTTP)",
    confirmation: "explicit",
    async open() {},
    async call(tool, mark, confirmed) {
      caseModels.set(mark, turnsFor(tool, mark));
      const started = await fetch(`${server.url}/api/runs`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ message: "go", model: mark }),
      });
      expect(started.status).toBe(202);
      const { runId } = (await started.json()) as { runId: string };
      const settled = () =>
        waitFor(
          `run ${runId} to settle`,
          async () => {
            const view = (await (await fetch(`${server.url}/api/runs/${runId}`)).json()) as RunView;
            return view.status !== "running" ? view : undefined;
          },
          20_000,
        );
      let view = await settled();
      if (view.status === "paused" && confirmed) {
        const decided = await fetch(`${server.url}/api/runs/${runId}/decisions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ decisions: [{ callId: view.pending[0]?.callId, decision: "approve" }] }),
        });
        expect(decided.status).toBe(200);
        view = await settled();
      }
      return outcomeOfRun(view);
    },
    async close() {},
  },
  {
    name: "Tools API (POST /api/tools/{name}/call)",
    confirmation: "explicit",
    async open() {},
    call: (tool, mark, confirmed) => toolsApiCall(tool, mark, { ...(confirmed ? { confirm: true } : {}) }),
    dryRun: (tool, mark) => toolsApiCall(tool, mark, { dryRun: true }),
    async close() {},
  },
  (() => {
    let socket: TestSocket;
    let id = 0;
    const surface: Surface = {
      name: "WebSocket API (/ws tools/call)",
      confirmation: "explicit",
      async open() {
        socket = await TestSocket.open(`${server.url.replace("http", "ws")}/ws`);
      },
      call: (tool, mark, confirmed) => wsCall(tool, mark, { ...(confirmed ? { confirm: true } : {}) }),
      dryRun: (tool, mark) => wsCall(tool, mark, { dryRun: true }),
      async close() {
        socket.close();
      },
    };
    return surface;
    async function wsCall(tool: DryRunTool, mark: string, flags: Record<string, boolean>): Promise<Outcome> {
      const reply = await socket.request(++id, {
        type: "tools/call",
        name: tool,
        arguments: { mark },
        ...flags,
      });
      if (reply.type === "result") {
        const result = reply.result as CallToolResult;
        return result.isError ? "refused" : ranOrDescribed(JSON.stringify(result.content));
      }
      const error = reply.error as { code?: string; message: string };
      if (error.code === "approval_required") {
        expect(error.message).toContain('"confirm": true');
        return "asked";
      }
      return "refused";
    }
  })(),
  mcpSurface("MCP 2025 over HTTP (/mcp session, elicitation)", "2025", "http"),
  mcpSurface("MCP 2026 over HTTP (/mcp stateless, input_required)", "2026", "http"),
  mcpSurface("MCP 2025 over stdio (toolbridge mcp)", "2025", "stdio"),
  mcpSurface("MCP 2026 over stdio (toolbridge mcp)", "2026", "stdio"),
  {
    name: "AI SDK (toAiSdkTools, generateText)",
    confirmation: "explicit",
    async open() {},
    call: (tool, mark, confirmed) => aiSdkCall(tool, mark, confirmed, false),
    dryRun: (tool, mark) => aiSdkCall(tool, mark, false, true),
    async close() {},
  },
  {
    name: "CLI tools call",
    confirmation: "implied",
    async open() {},
    call: (tool, mark) => cliToolsCall(tool, mark, []),
    dryRun: (tool, mark) => cliToolsCall(tool, mark, ["--dry-run"]),
    async close() {},
  },
  {
    name: "CLI run (then runs approve + runs resume)",
    confirmation: "explicit",
    async open() {},
    call: (tool, mark, confirmed) => cliRun(tool, mark, confirmed, []),
    // chat's dry run is the same agent run as run's (addAgentOptions): one CLI row for both.
    dryRun: (tool, mark) => cliRun(tool, mark, false, ["--dry-run"]),
    async close() {},
  },
  {
    name: "CLI chat (the approval prompt, answers piped)",
    confirmation: "explicit",
    async open() {},
    async call(tool, mark, confirmed) {
      const turns = path.join(dir, `${mark}.jsonl`);
      writeFileSync(
        turns,
        turnsFor(tool, mark)
          .map((turn) => JSON.stringify(turn))
          .join("\n"),
      );
      // The answer line is a harmless next message when no question comes (the model has a turn for it).
      const input = ["go", confirmed ? "y" : "n", "/exit", ""].join("\n");
      const result = await runCliAsync(
        ["chat", "--model", `replay:${turns}`, "--tools-module", FIXTURE_TOOLS, "--db", cliDb],
        { env: { TB_GATE_LOG: log }, input },
      );
      expect(result.status, result.stderr).toBe(0);
      if (ran(mark)) return "ran";
      return result.stdout.includes(`Allow ${tool}(`) ? "asked" : "refused";
    },
    async close() {},
  },
];

describe.each(SURFACES)("$name", (surface) => {
  beforeAll(() => surface.open(), 60_000);
  afterAll(() => surface.close());

  const cases = (Object.keys(EXPECTED) as Tool[]).flatMap((tool) =>
    [false, true].map((confirmed) => ({ tool, confirmed })),
  );
  it.each(cases)(
    "$tool, confirmed: $confirmed",
    async ({ tool, confirmed }) => {
      const mark = `${surface.name.replace(/\W+/g, "-")}-${tool}-${confirmed ? "yes" : "no"}`;
      const column = confirmed || surface.confirmation === "implied" ? "confirmed" : "unconfirmed";
      const expected = EXPECTED[tool][column];
      expect(await surface.call(tool, mark, confirmed)).toBe(expected);
      expect(ran(mark), `${tool} ${expected === "ran" ? "did not run" : "ran"}`).toBe(expected === "ran");
    },
    90_000,
  );
});

describe.each(SURFACES.filter((surface) => surface.dryRun))("$name, dry run", (surface) => {
  beforeAll(() => surface.open(), 60_000);
  afterAll(() => surface.close());

  it.each(Object.keys(EXPECTED_DRY_RUN) as DryRunTool[])(
    "%s: needs no confirmation, and runs only what changes nothing and needs nobody",
    async (tool) => {
      const mark = `${surface.name.replace(/\W+/g, "-")}-${tool}-dry`;
      const expected =
        EXPECTED_DRY_RUN[tool][surface.confirmation === "implied" ? "confirmed" : "unconfirmed"];
      expect(await surface.dryRun?.(tool, mark)).toBe(expected);
      expect(ran(mark), `${tool} ${expected === "ran" ? "did not run" : "ran"}`).toBe(expected === "ran");
    },
    90_000,
  );
});
