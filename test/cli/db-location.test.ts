/**
 * Where every command keeps its data: `--db`, else `$TOOLBRIDGE_DB_URL`, else the config's `"db"` (a path is the
 * config file's neighbour), else the user's data folder — an SQLite file, or PostgreSQL for a postgres:// URL.
 * The built bin, as a user runs it.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createDatabase, dropDatabase, postgresUrl } from "../helpers/postgres.js";
import { runCli } from "../helpers/run-cli.js";

const root = mkdtempSync(path.join(tmpdir(), "tb-db-location-"));
const databases: string[] = [];
afterAll(async () => {
  rmSync(root, { recursive: true, force: true });
  for (const url of databases) await dropDatabase(url);
});

const turns = path.join(root, "turns.jsonl");
writeFileSync(
  turns,
  [
    { text: "Computing.", calls: [{ name: "calculator", arguments: { expression: "6*7" } }] },
    { text: "Done." },
  ]
    .map((t) => JSON.stringify(t))
    .join("\n"),
);
const answer = path.join(root, "answer.jsonl");
writeFileSync(answer, `${JSON.stringify({ text: "Paris." })}\n`);

const env = { XDG_DATA_HOME: path.join(root, "xdg") };

describe("database location", { timeout: 120_000 }, () => {
  it("takes the config's db as a path next to the config file, and --db over it", () => {
    const project = path.join(root, "project");
    mkdirSync(project);
    writeFileSync(path.join(project, "toolbridge.config.json"), JSON.stringify({ db: "data/runs.db" }));
    const elsewhere = path.join(root, "elsewhere");
    mkdirSync(elsewhere);
    const run = runCli(
      [
        "run",
        "capital of France?",
        "--model",
        `replay:${answer}`,
        "-c",
        path.join(project, "toolbridge.config.json"),
      ],
      {
        cwd: elsewhere,
        env,
      },
    );
    expect(run.status, run.stderr).toBe(0);
    expect(existsSync(path.join(project, "data", "runs.db"))).toBe(true);
    expect(existsSync(path.join(root, "xdg"))).toBe(false);
    const other = path.join(root, "other.db");
    expect(
      runCli(["run", "again", "--model", `replay:${answer}`, "--db", other], { cwd: project, env }).status,
    ).toBe(0);
    expect(existsSync(other)).toBe(true);
  });

  it("refuses a TOOLBRIDGE_DB_URL of another database, naming where it came from", () => {
    const result = runCli(["runs", "list"], {
      cwd: root,
      env: { ...env, TOOLBRIDGE_DB_URL: "mysql://u:pw@h/db" },
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(
      "TOOLBRIDGE_DB_URL mysql://u:***@h/db is a URL of a database toolbridge cannot use",
    );
  });

  it("reports a PostgreSQL server it cannot reach (exit 2), without the password", () => {
    const result = runCli(["runs", "list", "--db", "postgres://app:s3cret@127.0.0.1:1/app"], {
      cwd: root,
      env,
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(
      "Cannot connect to the PostgreSQL database postgres://app:***@127.0.0.1:1/app",
    );
    expect(result.stderr).not.toContain("s3cret");
  });

  it.skipIf(!postgresUrl)(
    "keeps runs in PostgreSQL: run, list, approve and resume through TOOLBRIDGE_DB_URL and the config's db",
    async () => {
      const db = await createDatabase();
      databases.push(db);
      const started = runCli(
        [
          "run",
          "6*7?",
          "--model",
          `replay:${turns}`,
          "--require-approval",
          "calculator",
          "--json",
          "--db",
          db,
        ],
        {
          cwd: root,
          env,
        },
      );
      expect(started.status, started.stderr).toBe(0);
      const { runId, status, pending } = JSON.parse(started.stdout) as {
        runId: string;
        status: string;
        pending: Array<{ callId: string }>;
      };
      expect(status).toBe("paused");
      // The run is not in a local SQLite file (the data folder holds only its trace).
      expect(existsSync(path.join(root, "xdg", "toolbridge", "toolbridge.db"))).toBe(false);

      const listed = runCli(["runs", "list", "--json"], {
        cwd: root,
        env: { ...env, TOOLBRIDGE_DB_URL: db },
      });
      expect(listed.status, listed.stderr).toBe(0);
      expect(JSON.parse(listed.stdout)).toMatchObject([
        { runId, status: "paused", pending: [{ name: "calculator" }] },
      ]);

      const project = path.join(root, "pg-project");
      mkdirSync(project);
      writeFileSync(path.join(project, "toolbridge.config.json"), JSON.stringify({ db }));
      const approved = runCli(["runs", "approve", runId, pending[0]?.callId as string], {
        cwd: project,
        env,
      });
      expect(approved.status, approved.stderr).toBe(0);
      const resumed = runCli(["runs", "resume", runId, "--json"], { cwd: project, env });
      expect(resumed.status, resumed.stderr).toBe(0);
      expect(JSON.parse(resumed.stdout)).toMatchObject({ status: "finished", answer: "Done." });
    },
  );
});
