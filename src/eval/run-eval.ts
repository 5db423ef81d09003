import type { LanguageModel } from "../core/language-model.js";
import { type BfclCase, type BfclCategory, loadBfclCategory } from "./bfcl-dataset.js";
import { type EntryResult, type EntryRunSettings, runEntry } from "./run-entry.js";

/**
 * The entries of the chosen categories, in category order. With `limit`, that many per category, spread evenly over
 * it (entry 0, then every len/limit-th): the files are grouped by topic, so the first N would be one topic's.
 */
export function selectCases(categories: readonly BfclCategory[], limit?: number, dir?: string): BfclCase[] {
  return categories.flatMap((category) => {
    const all = dir === undefined ? loadBfclCategory(category) : loadBfclCategory(category, dir);
    if (limit === undefined || limit >= all.length) return all;
    return Array.from({ length: limit }, (_, i) => all[Math.floor((i * all.length) / limit)]!);
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
