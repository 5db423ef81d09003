/**
 * The CLI sinks of the redaction property (see redaction-sinks.test.ts): one `toolbridge run` of the built bin with a
 * secret in an environment variable, a tool that returns it and a model that repeats it. Neither stdout (`--json`,
 * and the streamed answer without it), nor stderr (progress lines quote arguments and results), nor the trace file,
 * nor the SQLite file may hold the literal or its JSON-escaped form.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { openSqlite } from "../helpers/open-sqlite.js";
import { CLI_MAIN, REPO_ROOT } from "../helpers/run-cli.js";

const dir = mkdtempSync(path.join(tmpdir(), "tb-redaction-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SECRET = 'Zq"s3cr\\et-ñ-😀-value';
const FORMS = [SECRET, JSON.stringify(SECRET).slice(1, -1)];

function expectClean(where: string, text: string): void {
  for (const form of FORMS) {
    if (text.includes(form)) throw new Error(`${where} contains the secret:\n${text.slice(0, 3000)}`);
  }
}

describe("toolbridge run with a secret in the environment", { timeout: 180_000 }, () => {
  it("prints, traces and stores no literal secret, in --json and in streamed output", () => {
    const tools = path.join(dir, "secret-tools.mjs");
    const defineTool = pathToFileURL(path.join(REPO_ROOT, "dist/tools/define-tool.js")).href;
    writeFileSync(
      tools,
      `import { defineTool } from ${JSON.stringify(defineTool)};
export const tools = [
  defineTool({
    name: "read_setting",
    description: "Read a setting.",
    inputSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
    annotations: { readOnlyHint: true },
    handler: ({ name }) => ({ name, value: process.env.TB_TEST_API_TOKEN, url: "postgres://app:" + process.env.TB_TEST_API_TOKEN + "@db/x" }),
  }),
  defineTool({
    name: "echo",
    description: "Return the text.",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    annotations: { readOnlyHint: true },
    handler: ({ text }) => text,
  }),
];
`,
    );
    const turns = path.join(dir, "turns.jsonl");
    writeFileSync(
      turns,
      [
        {
          text: `I already know it: ${SECRET}. Checking anyway.`,
          calls: [
            { name: "read_setting", arguments: { name: "api" } },
            { name: "echo", arguments: { text: `the token ${SECRET}` } },
          ],
        },
        { text: `The token is ${SECRET}.` },
      ]
        .map((turn) => JSON.stringify(turn))
        .join("\n"),
    );
    const db = path.join(dir, "state", "toolbridge.db");
    const run = (extra: string[]) =>
      spawnSync(
        process.execPath,
        [
          CLI_MAIN,
          "run",
          "What is the API token?",
          "--model",
          `replay:${turns}`,
          "--tools-module",
          tools,
          "--db",
          db,
          ...extra,
        ],
        {
          cwd: dir,
          env: { ...process.env, NO_COLOR: "1", TB_TEST_API_TOKEN: SECRET },
          encoding: "utf8",
          timeout: 90_000,
        },
      );

    const json = run(["--json"]);
    expect(json.status, json.stderr).toBe(0);
    const view = JSON.parse(json.stdout) as { status: string; answer: string };
    expect(view.status).toBe("finished");
    expect(view.answer).toBe("The token is [REDACTED].");
    expectClean("--json stdout", json.stdout);
    expectClean("stderr", json.stderr);

    const human = run([]);
    expect(human.status, human.stderr).toBe(0);
    expect(human.stdout).toContain("[REDACTED]");
    expectClean("stdout", human.stdout);
    expectClean("stderr", human.stderr);

    const traces = path.join(dir, "state", "traces");
    const files = readdirSync(traces);
    expect(files.length).toBe(2);
    for (const file of files) expectClean(`trace ${file}`, readFileSync(path.join(traces, file), "utf8"));

    const raw = openSqlite(db, { readonly: true });
    try {
      const tables = raw.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{
        name: string;
      }>;
      for (const { name } of tables) {
        for (const row of raw.prepare(`SELECT * FROM "${name}"`).all() as Array<Record<string, unknown>>) {
          for (const [column, value] of Object.entries(row)) {
            expectClean(`${name}.${column}`, Buffer.isBuffer(value) ? value.toString("utf8") : String(value));
          }
        }
      }
    } finally {
      raw.close();
    }
  });
});
