import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CLI_MAIN, REPO_ROOT, runCli } from "../helpers/run-cli.js";
import { postJson, readSse } from "../server/runs/helpers.js";

// `toolSelection` (config) on every surface that builds a catalogue for a model: `run`, `chat` and `serve`'s Runs
// API. 40-odd tools are mounted (a tools module of 30 plus the built-ins); each turn offers the 3 that fit the
// conversation, plus `get_time` (always) and the tools already called, and a call to a tool of the catalogue that was
// not offered still runs. What was offered is read from each run's `step-started` events.
const dir = mkdtempSync(path.join(tmpdir(), "tb-tool-selection-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TOPICS = [
  ["send_email", "Send an email message to a recipient with a subject and body"],
  ["stock_price", "Look up the latest stock market price of a company ticker symbol"],
  ["weather_forecast", "Weather forecast for a city: temperature, rain and wind"],
  ["translate_text", "Translate text from one language into another language"],
  ["book_flight", "Book a flight between two airports on a date"],
  ["order_pizza", "Order a pizza for delivery with toppings"],
  ["play_music", "Play a song or playlist on the speaker"],
  ["set_alarm", "Set an alarm clock to ring at a given hour"],
  ["create_invoice", "Create an invoice for a customer with line items and amounts"],
  ["search_recipes", "Search cooking recipes by ingredient"],
];
const moduleFile = path.join(dir, "tools.mjs");
writeFileSync(
  moduleFile,
  `import { defineTool } from ${JSON.stringify(path.join(REPO_ROOT, "dist/index.js"))};
const topics = ${JSON.stringify(TOPICS)};
const extra = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"].flatMap((w, i) => [
  ["inventory_" + w, "Count warehouse inventory of product line " + w],
  ["ticket_" + w, "Open a support ticket in queue " + w],
]);
export const tools = [...topics, ...extra].map(([name, description]) =>
  defineTool({
    name,
    description,
    inputSchema: { type: "object", properties: { query: { type: "string", description: "what to " + name.replace("_", " ") } } },
    handler: async ({ query }) => name + " done: " + (query ?? ""),
  }),
);
`,
);
const config = path.join(dir, "toolbridge.config.json");
writeFileSync(config, JSON.stringify({ toolSelection: { maxTools: 3, always: ["get_time"] } }));
const turns = path.join(dir, "turns.jsonl");
writeFileSync(
  turns,
  [
    // Not offered for an email request: still accepted, because it is in the catalogue.
    { calls: [{ name: "stock_price", arguments: { query: "ACME" } }] },
    { text: "Sent, and ACME is at 12." },
  ]
    .map((turn) => JSON.stringify(turn))
    .join("\n"),
);
const PROMPT = "please send an email to Bob with the quarterly report";

interface StepStarted {
  type: "step-started";
  step: number;
  tools?: string[];
}
interface ToolResult {
  type: "tool-result";
  name: string;
  status: string;
}

function traceEvents(db: string): Array<{ type: string }> {
  const traces = path.join(path.dirname(db), "traces");
  return readdirSync(traces).flatMap((file) =>
    readFileSync(path.join(traces, file), "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as { type: string }),
  );
}

const surfaces: Array<[string, (work: string) => Promise<Array<{ type: string }>>]> = [
  [
    "run",
    async (work) => {
      const db = path.join(work, "run.db");
      const result = runCli(
        [
          "run",
          PROMPT,
          "--model",
          `replay:${turns}`,
          "--tools-module",
          moduleFile,
          "--config",
          config,
          "--db",
          db,
          "--json",
        ],
        { cwd: work },
      );
      expect(result.status, result.stderr).toBe(0);
      return traceEvents(db);
    },
  ],
  [
    "chat",
    async (work) => {
      const db = path.join(work, "chat.db");
      const result = runCli(
        ["chat", "--model", `replay:${turns}`, "--tools-module", moduleFile, "--config", config, "--db", db],
        { cwd: work, input: `${PROMPT}\n/exit\n` },
      );
      expect(result.status, result.stderr).toBe(0);
      expect(result.stdout).toContain("Sent, and ACME is at 12.");
      return traceEvents(db);
    },
  ],
  [
    "serve /api/runs",
    async (work) => {
      const child: ChildProcessWithoutNullStreams = spawn(
        process.execPath,
        [
          CLI_MAIN,
          "serve",
          "--port",
          "0",
          "--db",
          "serve.db",
          "--tools-module",
          moduleFile,
          "--config",
          config,
        ],
        { cwd: work, env: { ...process.env, NO_COLOR: "1", TOOLBRIDGE_MODEL: `replay:${turns}` } },
      );
      try {
        const api = await new Promise<string>((resolve, reject) => {
          let out = "";
          let err = "";
          child.stderr.on("data", (chunk) => {
            err += chunk;
          });
          child.stdout.on("data", (chunk) => {
            out += chunk;
            const match = /REST API .*? (http:\/\/\S+)\/api\n/.exec(out);
            if (match) resolve(match[1]!);
          });
          child.on("exit", (code) => reject(new Error(`serve exited ${code}: ${err}`)));
        });
        const { runId } = (await postJson(`${api}/api/runs`, { message: PROMPT })).body as { runId: string };
        const events: Array<{ type: string }> = [];
        await readSse(`${api}/api/runs/${runId}/events`, (e) => {
          events.push(e.data as { type: string });
        });
        return events;
      } finally {
        child.kill("SIGTERM");
      }
    },
  ],
];

describe("toolSelection holds on every surface that offers a catalogue", { timeout: 180_000 }, () => {
  it.each(surfaces)("%s", async (name, start) => {
    const work = mkdtempSync(path.join(dir, `${name.replace(/\W+/g, "-")}-`));
    const events = await start(work);
    const steps = events.filter((e): e is StepStarted => e.type === "step-started");
    expect(steps.length).toBeGreaterThanOrEqual(2);
    const first = steps[0]!.tools!;
    // The three that fit the request, and get_time (always): not the 40-odd of the catalogue.
    expect(first).toContain("send_email");
    expect(first).toContain("get_time");
    expect(first).not.toContain("stock_price");
    expect(first.length).toBeLessThanOrEqual(4);
    // The call to a tool not offered this turn ran; the next turn offers it (it was called in the run).
    const result = events.find(
      (e): e is ToolResult => e.type === "tool-result" && (e as ToolResult).name === "stock_price",
    );
    expect(result?.status).toBe("ok");
    expect(steps[1]!.tools).toContain("stock_price");
    expect(steps[1]!.tools!.length).toBeLessThanOrEqual(5);
  });

  it("tools search ranks the same catalogue, and --max-tools / --always-offer override the config", () => {
    const search = runCli(
      ["tools", "search", "send an email to Bob", "--json", "--config", config, "--limit", "3"],
      {
        cwd: dir,
      },
    );
    // tools search lists the configured catalogue (no tools module here): the built-ins rank for their own words.
    expect(search.status, search.stderr).toBe(0);
    const ranked = JSON.parse(search.stdout) as {
      catalogue: number;
      tools: Array<{ name: string; score: number }>;
    };
    expect(ranked.catalogue).toBeGreaterThan(3);
    const db = path.join(dir, "flags.db");
    const run = runCli(
      [
        "run",
        PROMPT,
        "--model",
        `replay:${turns}`,
        "--tools-module",
        moduleFile,
        "--config",
        config,
        "--db",
        db,
        "--max-tools",
        "1",
        "--always-offer",
        "roll_*",
      ],
      { cwd: dir },
    );
    expect(run.status, run.stderr).toBe(0);
    const first = traceEvents(db).find((e): e is StepStarted => e.type === "step-started")!;
    expect(first.tools).toEqual(expect.arrayContaining(["send_email", "roll_dice"]));
    expect(first.tools).toHaveLength(2);
    const elsewhere = mkdtempSync(path.join(dir, "no-config-"));
    const bad = runCli(["run", PROMPT, "--model", `replay:${turns}`, "--always-offer", "get_time"], {
      cwd: elsewhere,
    });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--always-offer goes with --max-tools/);
  });
});
