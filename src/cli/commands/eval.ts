import type { Command } from "commander";
import { loadConfig } from "../../config/load-config.js";
import type { LanguageModel } from "../../core/language-model.js";
import { bfclDataDir } from "../../eval/bfcl-dataset.js";
import { EvalInputError } from "../../eval/eval-errors.js";
import { type AnswerSettings, EvalJournal, writeFileAtomically } from "../../eval/eval-journal.js";
import { type EvalReport, sweepReport, type VariantReport } from "../../eval/eval-report.js";
import { summarizeEval } from "../../eval/eval-summary.js";
import { type EvalVariant, parseVariants, variantKey, variantLabel } from "../../eval/eval-variant.js";
import { type SweepResult, summarizeSweep } from "../../eval/format-sweep.js";
import type { EntryRunSettings } from "../../eval/run-entry.js";
import { runEval, selectCases } from "../../eval/run-eval.js";
import { parseCategories } from "../../eval/select-categories.js";
import { listProtocols } from "../../protocols/protocol-registry.js";
import { CliError, runCommand } from "../cli-error.js";
import { createCliModel } from "../create-cli-model.js";
import { modelIdentity, ownVariant, variantSettings } from "../eval-models.js";
import { createEvalProgress } from "../eval-progress.js";
import { renderSummary, renderSweep } from "../eval-report-text.js";
import { createLoadProgress } from "../load-progress.js";
import { addModelOptions, type ModelFlags, modelLabel, requireModelSettings } from "../model-options.js";
import { writeRecommendation } from "../write-recommendation.js";

interface EvalOptions extends ModelFlags {
  category?: string;
  limit?: string;
  concurrency?: string;
  out?: string;
  resume?: boolean;
  json?: boolean;
  reask?: string;
  repair?: boolean;
  temperature?: string;
  timeout?: string;
  recommend?: boolean;
  config?: string;
}

function integer(value: string | undefined, flag: string, min: number, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min)
    throw new CliError(`${flag} must be an integer of at least ${min}, got "${value}".`);
  return n;
}

function temperature(value: string | undefined): number {
  if (value === undefined) return 0;
  const t = Number(value);
  if (!Number.isFinite(t) || t < 0 || t > 2)
    throw new CliError(`--temperature must be between 0 and 2, got "${value}".`);
  return t;
}

function writeJsonLine(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

/** The shared model flags that mean more here: --protocol names the formats to compare. */
function describeFormatFlags(command: Command): Command {
  for (const option of command.options) {
    if (option.long === "--protocol")
      option.description =
        "the format(s) to evaluate: native, a protocol id, a comma-separated list, or all (the format sweep); default: as configured";
    if (option.long === "--tool-choice")
      option.description =
        "auto (default, as BFCL asks) or required (a call on every entry: argument quality alone)";
  }
  return command;
}

export function registerEvalCommand(program: Command): void {
  const command = addModelOptions(
    program
      .command("eval")
      .description(
        "measure how well a model calls tools on the Berkeley Function Calling Leaderboard's single-turn entries (BFCL v4, AST rules); --protocol all compares every format",
      ),
  )
    .option(
      "--category <list>",
      "comma-separated categories: simple_python, simple_java, simple_javascript, multiple, parallel, parallel_multiple, irrelevance, live_* (or simple, java, javascript, live, non_live, python, all)",
      "all",
    )
    .option("--limit <n>", "at most n entries per category, spread evenly over it")
    .option("--concurrency <n>", "entries asked at once (default 2)")
    .option(
      "--reask <n>",
      "ask again up to n times when a turn's calls are unreadable or fail their schema (default 0)",
    )
    .option(
      "--no-repair",
      "count calls whose text had to be repaired (jsonrepair, unclosed markup) as unreadable",
    )
    .option("--temperature <t>", "sampling temperature (default 0: greedy)")
    .option("--timeout <ms>", "time for one entry, re-asks included (default 120000)")
    .option(
      "--out <file>",
      "write the report (JSON, every entry's answer) here; unfinished runs keep <file>.partial.jsonl",
    )
    .option("--resume", "continue the unfinished (or extend the finished) report at --out")
    .option("--json", "print JSON lines: one per entry, one summary per format, the sweep")
    .option("--recommend", "after a sweep, write the best format into the config's entry for this model")
    .option("-c, --config <file>", "config file (default: ./toolbridge.config.json when present)")
    .action((options: EvalOptions) => runCommand(() => evalCommand(options)));
  describeFormatFlags(command);
}

async function evalCommand(options: EvalOptions): Promise<number> {
  const { config, file } = loadConfig(options.config ? { configPath: options.config } : {});
  // --protocol names the formats to evaluate (native, all, a list): it is not the model's own setting here.
  const { protocol: protocolOption, ...flags } = options;
  const settings = requireModelSettings({ flags, config: config.model, configFile: file }, "eval");
  if (settings.provider === "replay") {
    throw new CliError(
      "eval needs a real model (a GGUF file, --base-url or --anthropic); a replay script has nothing to measure.",
    );
  }
  if (options.resume && !options.out)
    throw new CliError("--resume continues the report named by --out; give --out <file>.");
  try {
    bfclDataDir();
  } catch (error) {
    throw new CliError((error as Error).message);
  }
  let categories: ReturnType<typeof parseCategories>;
  let variants: EvalVariant[];
  try {
    categories = parseCategories(options.category ?? "all");
    variants = parseVariants(protocolOption, {
      protocols: listProtocols().map((p) => p.id),
      native: settings.provider !== "completions",
      grammarApplies: settings.provider === "llama",
      ...(options.grammar !== undefined ? { grammar: options.grammar } : {}),
    });
  } catch (error) {
    if (error instanceof EvalInputError) throw new CliError(error.message);
    throw error;
  }
  const limit = options.limit === undefined ? undefined : integer(options.limit, "--limit", 1, 1);
  const concurrency = integer(options.concurrency, "--concurrency", 1, 2);
  const entrySettings: EntryRunSettings = {
    reask: integer(options.reask, "--reask", 0, 0),
    repair: options.repair !== false,
    timeoutMs: integer(options.timeout, "--timeout", 1, 120_000),
    temperature: temperature(options.temperature),
  };
  const choice = settings.toolChoice;
  if (choice !== undefined && choice !== "auto") {
    if (choice !== "required") {
      throw new CliError(
        "eval asks with --tool-choice auto (as BFCL does) or required (a call on every entry); none and a named tool do not apply.",
      );
    }
    entrySettings.toolChoice = "required";
  }
  if (options.recommend && variants.length < 2) {
    throw new CliError(
      "--recommend writes the winner of a format sweep: add --protocol all (or a list of formats).",
    );
  }
  const cases = selectCases(categories, limit);
  const answerSettings: AnswerSettings = {
    model: modelIdentity(settings),
    reask: entrySettings.reask,
    repair: entrySettings.repair,
    toolChoice: entrySettings.toolChoice ?? "auto",
    temperature: entrySettings.temperature ?? 0,
    ...(settings.maxTokens !== undefined ? { maxTokens: settings.maxTokens } : {}),
    ...(settings.seed !== undefined ? { seed: settings.seed } : {}),
  };
  let journal: EvalJournal | undefined;
  if (options.out) {
    try {
      journal = EvalJournal.open(options.out, answerSettings, options.resume === true);
    } catch (error) {
      if (error instanceof EvalInputError) throw new CliError(error.message);
      throw error;
    }
  }

  // The model as configured: the single variant without --protocol, and the baseline of a sweep.
  const load = createLoadProgress(modelLabel(settings), process.stderr);
  let configured: LanguageModel | undefined;
  try {
    ({ model: configured } = await createCliModel(settings, { onLoadProgress: (p) => load.update(p) }));
  } finally {
    load.finish(configured !== undefined);
  }
  const own = ownVariant(configured, settings);

  const startedAt = new Date().toISOString();
  const abort = new AbortController();
  const onSignal = () => abort.abort(new Error("interrupted"));
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const keys = variants.map(variantKey);
  const todo = variants.reduce(
    (sum, _v, i) => sum + cases.filter((c) => !journal?.doneFor(keys[i]!).has(c.entry.id)).length,
    0,
  );
  const progress = createEvalProgress(process.stderr, todo);
  const reports: VariantReport[] = [];
  try {
    for (const [index, variant] of variants.entries()) {
      const key = keys[index]!;
      const label =
        variant.protocol === undefined ? `${variantLabel(own)} (as configured)` : variantLabel(variant);
      // Without --protocol the variant is the model as configured (--[no-]grammar is part of its settings already).
      const model =
        variant.protocol === undefined
          ? configured
          : (await createCliModel(variantSettings(settings, variant))).model;
      const done = journal?.doneFor(key) ?? new Map();
      const fresh = cases.filter((c) => !done.has(c.entry.id)).length;
      progress.variant(label, index, variants.length, cases.length, fresh);
      const started = performance.now();
      const results = await runEval({
        model,
        cases,
        settings: entrySettings,
        concurrency,
        done,
        signal: abort.signal,
        onResult: (result) => {
          journal?.append(key, result);
          progress.entry(result.passed);
          if (options.json) writeJsonLine({ type: "entry", variant: key, ...result });
        },
      });
      const summary = summarizeEval(results);
      progress.variantDone(label, summary.passed, summary.entries, (performance.now() - started) / 1000);
      reports.push({
        key,
        label,
        variant: variant.protocol === undefined ? own : variant,
        summary,
        entries: results,
      });
      if (options.json) writeJsonLine({ type: "summary", variant: key, label, ...summary });
    }
  } catch (error) {
    progress.stop();
    if (abort.signal.aborted) {
      process.stderr.write(
        journal
          ? `toolbridge: interrupted; the answered entries are kept in ${journal.path}: continue with the same command and --resume.\n`
          : "toolbridge: interrupted (give --out <file> to keep the answers of a long run and --resume it).\n",
      );
      return 130;
    }
    throw error;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
  progress.stop();

  let sweep: SweepResult | undefined;
  if (reports.length > 1) {
    sweep = summarizeSweep(
      reports.map((r) => ({ variant: r.variant, summary: r.summary })),
      variants.some((v) => variantKey(v) === variantKey(own)) ? own : undefined,
    );
  }
  if (options.json) {
    if (sweep) writeJsonLine({ type: "sweep", ...sweepReport(sweep) });
  } else {
    const scope = `${categories.length} categor${categories.length === 1 ? "y" : "ies"}, ${cases.length} entries${limit !== undefined ? ` (--limit ${limit})` : ""}`;
    for (const report of reports) {
      process.stdout.write(
        `${renderSummary(`${configured.id} · ${report.label} · ${scope}`, report.summary)}\n\n`,
      );
    }
    if (sweep) process.stdout.write(`${renderSweep(sweep)}\n`);
  }
  if (options.out && journal) {
    const report: EvalReport = {
      tool: "toolbridge eval",
      version: 1,
      model: { id: configured.id, label: modelLabel(settings) },
      answerSettings,
      run: {
        categories,
        ...(limit !== undefined ? { limit } : {}),
        concurrency,
        startedAt,
        finishedAt: new Date().toISOString(),
      },
      variants: reports,
      ...(sweep ? { sweep: sweepReport(sweep) } : {}),
    };
    writeFileAtomically(options.out, `${JSON.stringify(report, null, 1)}\n`);
    journal.finish();
    process.stderr.write(`toolbridge: report written to ${options.out}\n`);
  }
  if (options.recommend && sweep) {
    if (!sweep.conclusive) {
      process.stderr.write("toolbridge: no format got a call right; the config is unchanged.\n");
    } else if (sweep.best === sweep.baseline) {
      process.stderr.write("toolbridge: the model's own format scored best; the config is unchanged.\n");
    } else {
      const written = writeRecommendation({
        ...(options.config ? { configPath: options.config } : {}),
        settings,
        variant: sweep.best.variant,
      });
      process.stderr.write(
        `toolbridge: wrote ${JSON.stringify(written.settings)} to ${written.entry} in ${written.file}\n`,
      );
    }
  }
  return 0;
}
