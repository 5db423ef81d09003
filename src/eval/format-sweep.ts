import { categoryKind } from "./bfcl-dataset.js";
import type { EvalSummary } from "./eval-summary.js";
import { type EvalVariant, NATIVE, variantKey, variantLabel } from "./eval-variant.js";

export interface SweepRow {
  key: string;
  label: string;
  variant: EvalVariant;
  /** `sweepScore`: BFCL's single-turn overall over the categories run (else the share of entries passed), 0..1. */
  score: number;
  /** Half-width of the 95% interval of `score` over this many entries (normal approximation), 0..1. */
  margin: number;
  summary: EvalSummary;
}

export interface SweepResult {
  /** Best first. */
  rows: SweepRow[];
  /** BFCL's format-sensitivity measures, in points: best minus worst, and the sample standard deviation. */
  maxDelta: number;
  std: number;
  best: SweepRow;
  /** What the model uses when nothing is chosen for it (its own template), when the sweep ran it. */
  baseline?: SweepRow;
  /** Points the best gains over the baseline. */
  gain?: number;
  /**
   * False when no format got a single entry that expects a call right: the scores then differ only on irrelevance
   * (a format the model cannot write calls in "passes" those), and nothing is recommended.
   */
  conclusive: boolean;
  recommendation: string;
}

/**
 * The categories that say whether a model calls correctly: the AST ones (its calls checked), or where none ran,
 * live_relevance (any call passes).
 */
function callCategories(summary: EvalSummary): EvalSummary["categories"] {
  const ast = summary.categories.filter((c) => categoryKind(c.category) === "ast");
  return ast.length ? ast : summary.categories.filter((c) => categoryKind(c.category) === "relevance");
}

/** Entries of those categories passed. */
function callsRight(summary: EvalSummary): number {
  return callCategories(summary).reduce((sum, c) => sum + c.passed, 0);
}

/** Entries of those categories. */
function callsExpected(summary: EvalSummary): number {
  return callCategories(summary).reduce((sum, c) => sum + c.entries, 0);
}

/**
 * What a sweep ranks by: BFCL's overall when an AST group ran; otherwise (irrelevance and relevance alone, which
 * BFCL's overall would reduce to irrelevance) the share of entries passed.
 */
export function sweepScore(summary: EvalSummary): number {
  const { scores } = summary;
  if ((scores.nonLive !== undefined || scores.live !== undefined) && scores.overall !== undefined)
    return scores.overall;
  return summary.entries ? summary.passed / summary.entries : 0;
}

function schemaValidShare(summary: EvalSummary): number {
  return summary.calls.made ? summary.calls.schemaValid / summary.calls.made : 0;
}

const points = (share: number) => Math.round(share * 1000) / 10;

function described(variant: EvalVariant): string {
  if (variant.protocol === NATIVE) return "native tool calling";
  const name = `\`${variant.protocol ?? "the configured format"}\``;
  if (variant.grammar === undefined) return name;
  return variant.grammar ? `${name} with the grammar` : `${name} without the grammar`;
}

/**
 * The format sweep's table and advice: variants ranked by score (ties: more schema-valid calls, then faster), BFCL's
 * max delta and standard deviation across them, and which to use — the best of the formats in which the model got at
 * least one entry that expects a call right, measured against the model's own format (`baseline`), which is kept when
 * nothing beats it; a gain inside the margin of error is said to be one.
 */
export function summarizeSweep(
  results: ReadonlyArray<{ variant: EvalVariant; summary: EvalSummary }>,
  baseline?: EvalVariant,
): SweepResult {
  if (results.length === 0) throw new Error("a sweep needs at least one variant");
  const rows: SweepRow[] = results.map(({ variant, summary }) => {
    const score = sweepScore(summary);
    const n = Math.max(1, summary.entries);
    return {
      key: variantKey(variant),
      label: variantLabel(variant),
      variant,
      score,
      margin: 1.96 * Math.sqrt((score * (1 - score)) / n),
      summary,
    };
  });
  rows.sort(
    (a, b) =>
      b.score - a.score ||
      schemaValidShare(b.summary) - schemaValidShare(a.summary) ||
      a.summary.time.meanMs - b.summary.time.meanMs ||
      a.key.localeCompare(b.key),
  );
  const scores = rows.map((row) => row.score * 100);
  const mean = scores.reduce((a, b) => a + b, 0) / scores.length;
  const std =
    scores.length > 1
      ? Math.sqrt(scores.reduce((sum, s) => sum + (s - mean) ** 2, 0) / (scores.length - 1))
      : 0;
  const maxDelta = scores.length > 1 ? Math.max(...scores) - Math.min(...scores) : 0;
  const base = baseline ? rows.find((row) => row.key === variantKey(baseline)) : undefined;
  // Only a format in which the model got a call right can be the one to call tools in: where entries expect calls,
  // a format the model writes no readable call in still "passes" every irrelevance entry.
  const expected = Math.max(...rows.map((row) => callsExpected(row.summary)));
  const eligible = expected === 0 ? rows : rows.filter((row) => callsRight(row.summary) > 0);
  let best = eligible[0] ?? rows[0]!;
  if (base && eligible.includes(base) && base.score >= best.score) best = base;
  const result: SweepResult = {
    rows,
    maxDelta: Math.round(maxDelta * 10) / 10,
    std: Math.round(std * 10) / 10,
    best,
    conclusive: eligible.length > 0,
    recommendation: "",
  };
  if (base) {
    result.baseline = base;
    result.gain = Math.round((best.score - base.score) * 1000) / 10;
  }
  result.recommendation = recommend(result, rows.length);
  return result;
}

function recommend(sweep: SweepResult, count: number): string {
  const { best, baseline, gain } = sweep;
  if (!sweep.conclusive) {
    return `none: in no format did the model get one of the ${callsExpected(best.summary)} entries whose calls are checked right; the formats differ only in how often it answers without a call (irrelevance) or calls at all (relevance). It does not call these tools correctly in any format.`;
  }
  const bestScore = `${points(best.score)}%`;
  if (!baseline || gain === undefined) {
    return `use ${described(best.variant)}: the best of ${count} formats (${bestScore} ± ${points(best.margin)}).`;
  }
  const own = `the model's own format (${baseline.label}, ${points(baseline.score)}%)`;
  if (best === baseline) return `keep ${own}: no format it got a call right in scored higher.`;
  const advice = `use ${described(best.variant)}: +${gain} points over ${own}`;
  // With few entries per format, a gain inside the 95% margin can be chance.
  if (best.score - baseline.score <= Math.max(best.margin, baseline.margin)) {
    return `${advice}, within the margin of error (± ${points(Math.max(best.margin, baseline.margin))}) — run more entries (--limit) before changing.`;
  }
  return `${advice}.`;
}
