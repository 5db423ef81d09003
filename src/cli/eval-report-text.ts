import type { EvalSummary } from "../eval/eval-summary.js";
import type { SweepResult } from "../eval/format-sweep.js";
import { formatDuration } from "./eval-progress.js";

const percent = (share: number | undefined) => (share === undefined ? "—" : `${(share * 100).toFixed(1)}%`);

function failureList(failures: EvalSummary["failures"]): string {
  return Object.entries(failures)
    .map(([name, count]) => `${name} ${count}`)
    .join(", ");
}

function table(rows: string[][], alignRight: ReadonlySet<number>): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows
    .map((row) =>
      row
        .map((cell, column) =>
          alignRight.has(column) ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!),
        )
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

/** BFCL's summary scores in one line, the groups that ran. */
export function scoresLine(summary: EvalSummary): string {
  const { scores } = summary;
  const parts: string[] = [];
  if (scores.nonLive !== undefined) parts.push(`non-live AST ${percent(scores.nonLive)}`);
  if (scores.live !== undefined) parts.push(`live AST ${percent(scores.live)}`);
  if (scores.irrelevance !== undefined) parts.push(`irrelevance ${percent(scores.irrelevance)}`);
  if (scores.relevance !== undefined) parts.push(`relevance ${percent(scores.relevance)}`);
  if (scores.overall !== undefined) parts.push(`overall ${percent(scores.overall)}`);
  return parts.join(" · ");
}

/** One variant's report: per category (with its failure classes), BFCL's scores, calls, tokens and time. */
export function renderSummary(title: string, summary: EvalSummary): string {
  const rows = [["category", "entries", "passed", "accuracy", "failures"]];
  for (const c of summary.categories) {
    rows.push([
      c.category,
      String(c.entries),
      String(c.passed),
      percent(c.accuracy),
      failureList(c.failures),
    ]);
  }
  const { calls, tokens, time } = summary;
  const lines = [title, "", table(rows, new Set([1, 2, 3])), "", `BFCL scores: ${scoresLine(summary)}`];
  if (summary.scores.overall !== undefined)
    lines.push("  (overall: BFCL's single-turn part, non-live : live : irrelevance = 10 : 10 : 10)");
  if (Object.keys(summary.failures).length) lines.push(`failures: ${failureList(summary.failures)}`);
  const share = (n: number) => (calls.made ? ` (${((n / calls.made) * 100).toFixed(1)}%)` : "");
  lines.push(
    `calls: ${calls.made} made, ${calls.readable} readable${share(calls.readable)}, ${calls.schemaValid} valid against their schema${share(calls.schemaValid)}, ${calls.repaired} repaired; ${summary.reasks} re-asked`,
  );
  const tokenText =
    tokens.input !== undefined || tokens.output !== undefined
      ? `tokens per entry: ${tokens.input ?? "?"} in, ${tokens.output ?? "?"} out · `
      : "";
  lines.push(
    `${tokenText}time per entry: mean ${time.meanMs} ms, p50 ${time.p50Ms} ms, p95 ${time.p95Ms} ms (${formatDuration(time.totalMs / 1000)} of answers)`,
  );
  return lines.join("\n");
}

/** The format sweep's table, BFCL's sensitivity measures and the recommendation. */
export function renderSweep(sweep: SweepResult): string {
  const rows = [
    ["rank", "format", "overall", "±", "non-live", "live", "irrelevance", "valid calls", "ms/entry"],
  ];
  sweep.rows.forEach((row, index) => {
    const { summary } = row;
    const valid = summary.calls.made
      ? `${((summary.calls.schemaValid / summary.calls.made) * 100).toFixed(0)}%`
      : "—";
    const mark = `${row === sweep.baseline ? " (own)" : ""}${row === sweep.best && sweep.conclusive ? " ← best" : ""}`;
    rows.push([
      String(index + 1),
      `${row.label}${mark}`,
      percent(row.score),
      (row.margin * 100).toFixed(1),
      percent(summary.scores.nonLive),
      percent(summary.scores.live),
      percent(summary.scores.irrelevance),
      valid,
      String(summary.time.meanMs),
    ]);
  });
  return [
    `format sweep: ${sweep.rows.length} formats`,
    "",
    table(rows, new Set([0, 2, 3, 4, 5, 6, 7, 8])),
    "",
    `max delta ${sweep.maxDelta} points · standard deviation ${sweep.std} points (BFCL's format-sensitivity measures)`,
    `recommendation: ${sweep.recommendation}`,
  ].join("\n");
}
