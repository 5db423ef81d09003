import { BFCL_CATEGORIES, type BfclCategory } from "./bfcl-dataset.js";
import { FAILURE_CLASSES, type FailureClass } from "./failure-class.js";
import type { EntryResult } from "./run-entry.js";

export interface CategoryScore {
  category: BfclCategory;
  entries: number;
  passed: number;
  /** passed / entries, 0..1. */
  accuracy: number;
  failures: Partial<Record<FailureClass, number>>;
}

/**
 * BFCL's summary scores over the categories that were run (0..1): `simple` is the unweighted mean of its Python, Java
 * and JavaScript parts, `nonLive` the unweighted mean of simple, multiple, parallel and parallel_multiple, `live` the
 * entry-weighted mean of the four live AST categories, `irrelevance` the mean of irrelevance and live_irrelevance,
 * `relevance` live_relevance. `overall` weighs non-live, live and irrelevance 10:10:10 as BFCL's overall does (its
 * multi-turn and agentic parts, 70% of it, are not single-turn and not run here). A group none of whose categories ran
 * is left out.
 */
export interface BfclScores {
  simple?: number;
  nonLive?: number;
  live?: number;
  irrelevance?: number;
  relevance?: number;
  overall?: number;
}

export interface EvalSummary {
  entries: number;
  passed: number;
  categories: CategoryScore[];
  scores: BfclScores;
  failures: Partial<Record<FailureClass, number>>;
  calls: {
    made: number;
    readable: number;
    /** Readable calls whose arguments validate against the offered tool's schema. */
    schemaValid: number;
    repaired: number;
  };
  reasks: number;
  /** Per entry (mean), where the backend reports them. */
  tokens: { input?: number; output?: number };
  time: { totalMs: number; meanMs: number; p50Ms: number; p95Ms: number };
}

function mean(values: readonly number[]): number | undefined {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : undefined;
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

function count(target: Partial<Record<FailureClass, number>>, failure: FailureClass): void {
  target[failure] = (target[failure] ?? 0) + 1;
}

/** In FAILURE_CLASSES order, so every report lists them the same way. */
function ordered(failures: Partial<Record<FailureClass, number>>): Partial<Record<FailureClass, number>> {
  const out: Partial<Record<FailureClass, number>> = {};
  for (const name of FAILURE_CLASSES) if (failures[name]) out[name] = failures[name];
  return out;
}

export function bfclScores(categories: readonly CategoryScore[]): BfclScores {
  const of = (name: BfclCategory) => categories.find((c) => c.category === name);
  const accuracy = (name: BfclCategory) => of(name)?.accuracy;
  const present = (names: BfclCategory[]) => names.map(accuracy).filter((a): a is number => a !== undefined);
  const scores: BfclScores = {};
  const simple = mean(present(["simple_python", "simple_java", "simple_javascript"]));
  if (simple !== undefined) scores.simple = simple;
  const nonLive = mean(
    [simple, accuracy("multiple"), accuracy("parallel"), accuracy("parallel_multiple")].filter(
      (a): a is number => a !== undefined,
    ),
  );
  if (nonLive !== undefined) scores.nonLive = nonLive;
  const live = ["live_simple", "live_multiple", "live_parallel", "live_parallel_multiple"]
    .map((name) => of(name as BfclCategory))
    .filter((c): c is CategoryScore => c !== undefined);
  const liveEntries = live.reduce((sum, c) => sum + c.entries, 0);
  if (liveEntries > 0) scores.live = live.reduce((sum, c) => sum + c.passed, 0) / liveEntries;
  const irrelevance = mean(present(["irrelevance", "live_irrelevance"]));
  if (irrelevance !== undefined) scores.irrelevance = irrelevance;
  const relevance = accuracy("live_relevance");
  if (relevance !== undefined) scores.relevance = relevance;
  const overall = mean(
    [scores.nonLive, scores.live, scores.irrelevance].filter((a): a is number => a !== undefined),
  );
  if (overall !== undefined) scores.overall = overall;
  return scores;
}

/** Per category and overall, from the entries' results (in any order). */
export function summarizeEval(results: readonly EntryResult[]): EvalSummary {
  const byCategory = new Map<BfclCategory, CategoryScore>();
  const failures: Partial<Record<FailureClass, number>> = {};
  const calls = { made: 0, readable: 0, schemaValid: 0, repaired: 0 };
  let reasks = 0;
  const input: number[] = [];
  const output: number[] = [];
  const times: number[] = [];
  for (const result of results) {
    const score = byCategory.get(result.category) ?? {
      category: result.category,
      entries: 0,
      passed: 0,
      accuracy: 0,
      failures: {},
    };
    score.entries++;
    if (result.passed) score.passed++;
    if (result.failure) {
      count(score.failures, result.failure.class);
      count(failures, result.failure.class);
    }
    byCategory.set(result.category, score);
    calls.made += result.callsMade;
    calls.readable += result.callsReadable;
    calls.schemaValid += result.callsSchemaValid;
    calls.repaired += result.callsRepaired;
    reasks += result.reasks;
    if (result.inputTokens !== undefined) input.push(result.inputTokens);
    if (result.outputTokens !== undefined) output.push(result.outputTokens);
    times.push(result.ms);
  }
  const categories = BFCL_CATEGORIES.flatMap((name) => {
    const score = byCategory.get(name);
    if (!score) return [];
    return [{ ...score, accuracy: score.passed / score.entries, failures: ordered(score.failures) }];
  });
  const sorted = [...times].sort((a, b) => a - b);
  const totalMs = times.reduce((a, b) => a + b, 0);
  const inputMean = mean(input);
  const outputMean = mean(output);
  return {
    entries: results.length,
    passed: results.filter((r) => r.passed).length,
    categories,
    scores: bfclScores(categories),
    failures: ordered(failures),
    calls,
    reasks,
    tokens: {
      ...(inputMean !== undefined ? { input: Math.round(inputMean) } : {}),
      ...(outputMean !== undefined ? { output: Math.round(outputMean) } : {}),
    },
    time: {
      totalMs,
      meanMs: Math.round(mean(times) ?? 0),
      p50Ms: percentile(sorted, 50),
      p95Ms: percentile(sorted, 95),
    },
  };
}
