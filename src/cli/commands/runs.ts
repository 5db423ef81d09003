import os from "node:os";
import type { Command } from "commander";
import { buildRunView } from "../../agent/run-view.js";
import type { RunRecord, RunStatus } from "../../store/store.js";
import { CliError, parseJsonOption, runCommand } from "../cli-error.js";
import { commandHint } from "../command-hint.js";
import { type CliAgent, createCliAgent, storedSettings } from "../create-cli-agent.js";
import { configuredDb, LazyDatabase, resolveDbLocation } from "../open-store.js";
import { asCliError, describeEvent, printRunView } from "../run-output.js";

const STATUSES: readonly RunStatus[] = ["running", "paused", "finished", "stopped"];

interface DbOption {
  db?: string;
}

/** The database the `runs` commands read: --db, else $TOOLBRIDGE_DB_URL, else ./toolbridge.config.json's db. */
function runsDatabase(db: string | undefined): LazyDatabase {
  return new LazyDatabase(resolveDbLocation({ db, configDb: configuredDb() }));
}

/** Open the runs' database, reporting (exit 2) an SQLite file that does not exist instead of creating it. */
async function openRunsStore(db: string | undefined) {
  const opened = await runsDatabase(db).openExisting(db);
  return { store: opened.store, close: () => opened.close() };
}

/** Rebuild the agent a stored run was started with, run `body` with it, and always close everything. */
async function withRunAgent<T>(
  runId: string,
  db: string | undefined,
  body: (cli: CliAgent, run: RunRecord) => Promise<T>,
): Promise<T> {
  const database = runsDatabase(db);
  const store = (await database.openExisting(db)).store;
  let cli: CliAgent | undefined;
  try {
    const run = await store.getRun(runId);
    if (!run)
      throw new CliError(
        `No run with id "${runId}" in ${store.location}; see \`${commandHint(["runs", "list"], { db })}\`.`,
      );
    cli = await createCliAgent(storedSettings(run.options, runId), database);
    return await body(cli, run);
  } catch (error) {
    throw asCliError(error);
  } finally {
    await cli?.close();
    await database.close();
  }
}

function printDecision(
  runId: string,
  result: { pending: Array<{ callId: string }>; ready: boolean },
  json: boolean,
  db: string | undefined,
) {
  if (json) {
    process.stdout.write(`${JSON.stringify({ runId, pending: result.pending, ready: result.ready })}\n`);
  } else if (result.ready) {
    process.stdout.write(
      `All calls decided; continue with:\n  ${commandHint(["runs", "resume", runId], { db })}\n`,
    );
  } else {
    process.stdout.write(`Still waiting for: ${result.pending.map((p) => p.callId).join(", ")}.\n`);
  }
}

type ListOptions = DbOption & { status?: string; limit?: string; json?: boolean };
type ShowOptions = DbOption & { json?: boolean };
type ApproveOptions = DbOption & { args?: string; by?: string; json?: boolean };
type DenyOptions = DbOption & { reason?: string; by?: string; json?: boolean };
type ResumeOptions = DbOption & { json?: boolean };

/** `runs list`: recent runs, newest first, with their pending calls. */
async function listRuns(options: ListOptions): Promise<number> {
  if (options.status && !STATUSES.includes(options.status as RunStatus)) {
    throw new CliError(`--status must be one of ${STATUSES.join(", ")}, got "${options.status}".`);
  }
  const limit = options.limit ? Number(options.limit) : 20;
  if (!Number.isInteger(limit) || limit < 1)
    throw new CliError(`--limit must be a positive integer, got "${options.limit}".`);
  const { store, close } = await openRunsStore(options.db);
  try {
    const filter: { status?: RunStatus; limit: number } = { limit };
    if (options.status) filter.status = options.status as RunStatus;
    const records = await store.listRuns(filter);
    const rows = await Promise.all(
      records.map(async (run) => ({
        runId: run.id,
        status: run.status,
        stopReason: run.stopReason,
        createdAt: run.createdAt,
        steps: run.stepCount,
        pending: (await buildRunView(store, run.id)).pending,
      })),
    );
    if (options.json) {
      process.stdout.write(`${JSON.stringify(rows)}\n`);
      return 0;
    }
    if (rows.length === 0) process.stdout.write("No runs.\n");
    for (const row of rows) {
      const pending = row.pending.length
        ? `  pending: ${row.pending.map((p) => `${p.callId} ${p.name}`).join(", ")}`
        : "";
      process.stdout.write(
        `${row.runId}  ${row.status.padEnd(8)}  ${String(row.stopReason ?? "").padEnd(18)}  ${row.createdAt}${pending}\n`,
      );
    }
    return 0;
  } finally {
    await close();
  }
}

/** `runs show <runId>`: a run's steps, calls, results and approvals. */
async function showRun(runId: string, options: ShowOptions): Promise<number> {
  const { store, close } = await openRunsStore(options.db);
  try {
    const view = await buildRunView(store, runId).catch((error) => {
      throw asCliError(error);
    });
    if (options.json) {
      process.stdout.write(`${JSON.stringify(view)}\n`);
      return 0;
    }
    process.stdout.write(`Run ${view.runId}: ${view.status} (${view.stopReason ?? "-"})\n`);
    for (const [i, step] of view.steps.entries()) {
      process.stdout.write(`step ${i + 1}\n`);
      for (const call of step.calls) {
        const approval = call.approval
          ? ` [${call.approval.decision}${call.approval.by ? ` by ${call.approval.by}` : ""}]`
          : "";
        process.stdout.write(`  ${call.id} ${call.name} ${JSON.stringify(call.arguments)}${approval}\n`);
        if (call.result) {
          const text = call.result.content.map((b) => (b.type === "text" ? b.text : `[${b.type}]`)).join(" ");
          process.stdout.write(`    ${call.result.isError ? "error: " : ""}${text.slice(0, 300)}\n`);
        }
      }
    }
    if (view.answer !== null) process.stdout.write(`answer: ${view.answer}\n`);
    return 0;
  } finally {
    await close();
  }
}

/** `runs approve <runId> <callId>`: optionally with edited arguments, which the agent validates again. */
async function approveCall(runId: string, callId: string, options: ApproveOptions): Promise<number> {
  let edited: Record<string, unknown> | undefined;
  if (options.args !== undefined) {
    const parsed = parseJsonOption(options.args, "--args");
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed))
      throw new CliError("--args must be a JSON object.");
    edited = parsed as Record<string, unknown>;
  }
  return withRunAgent(runId, options.db, async ({ agent }) => {
    const result = await agent.approve(runId, callId, {
      by: options.by ?? os.userInfo().username,
      ...(edited ? { arguments: edited } : {}),
    });
    printDecision(runId, result, options.json === true, options.db);
    return 0;
  });
}

/** `runs deny <runId> <callId>`: the model sees the reason. */
function denyCall(runId: string, callId: string, options: DenyOptions): Promise<number> {
  return withRunAgent(runId, options.db, async ({ agent }) => {
    const result = await agent.deny(runId, callId, {
      by: options.by ?? os.userInfo().username,
      ...(options.reason !== undefined ? { reason: options.reason } : {}),
    });
    printDecision(runId, result, options.json === true, options.db);
    return 0;
  });
}

/** `runs resume <runId>`: go on once every pending call is decided (or after the process that drove it died). */
function resumeRun(runId: string, options: ResumeOptions): Promise<number> {
  return withRunAgent(runId, options.db, async ({ agent, store }) => {
    const handle = agent.resume(runId);
    for await (const event of handle) {
      const line = options.json ? undefined : describeEvent(event);
      if (line) process.stderr.write(`${line}\n`);
    }
    const view = await handle.result;
    return printRunView(view, options.json === true, (await store.getRun(runId))?.error, { db: options.db });
  });
}

/** `toolbridge runs …`: each subcommand's flags, then its action above. */
export function registerRunsCommand(program: Command): void {
  const runs = program.command("runs").description("list, inspect, approve, deny and resume agent runs");

  runs
    .command("list")
    .description("recent runs, newest first")
    .option("--status <status>", `only runs with this status (${STATUSES.join(", ")})`)
    .option("--limit <n>", "how many (default 20)")
    .option("--json", "print a JSON array")
    .option(
      "--db <file|url>",
      "SQLite file or postgres:// URL (default: $TOOLBRIDGE_DB_URL, the config's db)",
    )
    .action((options: ListOptions) => runCommand(() => listRuns(options)));

  runs
    .command("show")
    .description("a run's steps, calls, results, approvals and pending calls")
    .argument("<runId>")
    .option("--json", "print the run as one JSON object")
    .option(
      "--db <file|url>",
      "SQLite file or postgres:// URL (default: $TOOLBRIDGE_DB_URL, the config's db)",
    )
    .action((runId: string, options: ShowOptions) => runCommand(() => showRun(runId, options)));

  runs
    .command("approve")
    .description("approve a pending call (optionally with edited arguments, re-validated)")
    .argument("<runId>")
    .argument("<callId>")
    .option("--args <json>", "run the call with these arguments instead (a JSON object)")
    .option("--by <name>", "who decides (default: the OS user), for the audit log")
    .option("--json", "print {runId, pending, ready}")
    .option(
      "--db <file|url>",
      "SQLite file or postgres:// URL (default: $TOOLBRIDGE_DB_URL, the config's db)",
    )
    .action((runId: string, callId: string, options: ApproveOptions) =>
      runCommand(() => approveCall(runId, callId, options)),
    );

  runs
    .command("deny")
    .description("deny a pending call; the model sees the reason")
    .argument("<runId>")
    .argument("<callId>")
    .option("--reason <text>", "why (shown to the model)")
    .option("--by <name>", "who decides (default: the OS user), for the audit log")
    .option("--json", "print {runId, pending, ready}")
    .option(
      "--db <file|url>",
      "SQLite file or postgres:// URL (default: $TOOLBRIDGE_DB_URL, the config's db)",
    )
    .action((runId: string, callId: string, options: DenyOptions) =>
      runCommand(() => denyCall(runId, callId, options)),
    );

  runs
    .command("resume")
    .description("continue a run whose pending calls are all decided (or whose process died)")
    .argument("<runId>")
    .option("--json", "print one JSON object: runId, status, stopReason, answer, steps, pending")
    .option(
      "--db <file|url>",
      "SQLite file or postgres:// URL (default: $TOOLBRIDGE_DB_URL, the config's db)",
    )
    .action((runId: string, options: ResumeOptions) => runCommand(() => resumeRun(runId, options)));
}
