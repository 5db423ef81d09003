import type { LanguageModel } from "../core/language-model.js";
import { type BfclCase, type BfclCategory, loadBfclCategory } from "./bfcl-dataset.js";
import { type EntryResult, type EntryRunSettings, runEntry } from "./run-entry.js";

/** Base-2 radical inverse (van der Corput): 0, 1/2, 1/4, 3/4, 1/8, 5/8, … — each prefix evenly spread. */
function radicalInverse(k: number): number {
  let inverse = 0;
  let unit = 0.5;
  for (let n = k; n > 0; n >>= 1, unit /= 2) if (n & 1) inverse += unit;
  return inverse;
}

/**
 * `limit` indices of `length`, spread evenly over it and nested: the first `n` of them for any larger limit are the
 * ones a limit of `n` picks, so raising --limit extends a report (--resume asks only the new ones).
 */
export function spreadIndices(length: number, limit: number): number[] {
  const picked = new Set<number>();
  for (let k = 0; picked.size < Math.min(limit, length); k++)
    picked.add(Math.floor(radicalInverse(k) * length));
  return [...picked].sort((a, b) => a - b);
}

/**
 * The entries of the chosen categories, in category order. With `limit`, that many per category, spread over it
 * (`spreadIndices`): the files are grouped by topic, so the first N would be one topic's.
 */
export function selectCases(categories: readonly BfclCategory[], limit?: number, dir?: string): BfclCase[] {
  return categories.flatMap((category) => {
    const all = dir === undefined ? loadBfclCategory(category) : loadBfclCategory(category, dir);
    if (limit === undefined || limit >= all.length) return all;
    return spreadIndices(all.length, limit).map((index) => all[index]!);
  });
}

/**
 * Ask the model every case (`concurrency` at a time; a local GGUF serves that many on its own context sequences),
 * skipping the ids of `done`. Each result is handed to `onResult` as it comes — the CLI journals it there, so an
 * interrupted run loses at most the entries in flight. Results come back in case order.
 */
export async function runEval(input: {
  model: LanguageModel;
  cases: readonly BfclCase[];
  settings: EntryRunSettings;
  concurrency: number;
  done?: ReadonlyMap<string, EntryResult>;
  signal?: AbortSignal;
  onResult?: (result: EntryResult) => void;
}): Promise<EntryResult[]> {
  const { model, cases, settings } = input;
  const results = new Array<EntryResult | undefined>(cases.length);
  const todo: number[] = [];
  cases.forEach((bfclCase, index) => {
    const previous = input.done?.get(bfclCase.entry.id);
    if (previous) results[index] = previous;
    else todo.push(index);
  });
  let next = 0;
  const worker = async () => {
    while (next < todo.length) {
      input.signal?.throwIfAborted();
      const index = todo[next++]!;
      const result = await runEntry({
        model,
        bfclCase: cases[index]!,
        settings,
        ...(input.signal ? { signal: input.signal } : {}),
      });
      results[index] = result;
      input.onResult?.(result);
    }
  };
  const workers = Math.max(1, Math.min(input.concurrency, todo.length));
  await Promise.all(Array.from({ length: workers }, worker));
  return results as EntryResult[];
}
