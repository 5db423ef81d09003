import type { BfclCategory } from "./bfcl-dataset.js";
import type { AnswerSettings } from "./eval-journal.js";
import type { EvalSummary } from "./eval-summary.js";
import type { EvalVariant } from "./eval-variant.js";
import type { SweepResult } from "./format-sweep.js";
import type { EntryResult } from "./run-entry.js";

/** One variant's results in a report. */
export interface VariantReport {
  key: string;
  label: string;
  variant: EvalVariant;
  summary: EvalSummary;
  entries: EntryResult[];
}

/** The sweep as a report keeps it: its table without repeating each variant's summary. */
export interface SweepReport {
  rows: Array<{ key: string; label: string; score: number; margin: number }>;
  maxDelta: number;
  std: number;
  best: string;
  baseline?: string;
  gain?: number;
  conclusive: boolean;
  recommendation: string;
}

/** What `toolbridge eval --out` writes (and `--resume` reads back). */
export interface EvalReport {
  tool: "toolbridge eval";
  version: 1;
  model: { id: string; label: string };
  answerSettings: AnswerSettings;
  run: {
    categories: BfclCategory[];
    limit?: number;
    concurrency: number;
    startedAt: string;
    finishedAt: string;
  };
  variants: VariantReport[];
  sweep?: SweepReport;
}

export function sweepReport(sweep: SweepResult): SweepReport {
  return {
    rows: sweep.rows.map(({ key, label, score, margin }) => ({ key, label, score, margin })),
    maxDelta: sweep.maxDelta,
    std: sweep.std,
    best: sweep.best.key,
    ...(sweep.baseline ? { baseline: sweep.baseline.key } : {}),
    ...(sweep.gain !== undefined ? { gain: sweep.gain } : {}),
    conclusive: sweep.conclusive,
    recommendation: sweep.recommendation,
  };
}
