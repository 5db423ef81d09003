import { appendFileSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { EvalInputError } from "./eval-errors.js";
import type { EntryResult } from "./run-entry.js";

/** What decides the answers of a report's entries: entries of two runs can be mixed only when these agree. */
export interface AnswerSettings {
  /** Which model: provider, file or server, model name. */
  model: Record<string, unknown>;
  reask: number;
  repair: boolean;
  toolChoice: string;
  temperature: number;
  maxTokens?: number;
  seed?: number;
}

/** The journal an unfinished report keeps beside itself, one JSON line per finished entry. */
export function journalPath(reportPath: string): string {
  return `${reportPath}.partial.jsonl`;
}

function sameSettings(a: AnswerSettings, b: AnswerSettings): string[] {
  const differ: string[] = [];
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]) as Set<keyof AnswerSettings>;
  for (const key of keys) if (JSON.stringify(a[key]) !== JSON.stringify(b[key])) differ.push(key);
  return differ;
}

/** Entries already answered, by variant key and entry id. */
export type DoneEntries = Map<string, Map<string, EntryResult>>;

interface StoredReport {
  answerSettings?: AnswerSettings;
  variants?: Array<{ key: string; entries: EntryResult[] }>;
}

function readJournal(file: string): { settings: AnswerSettings | undefined; done: DoneEntries } {
  const done: DoneEntries = new Map();
  let settings: AnswerSettings | undefined;
  const lines = readFileSync(file, "utf8").split("\n");
  lines.forEach((line, index) => {
    if (line.trim() === "") return;
    let record: { type?: string; settings?: AnswerSettings; variant?: string; result?: EntryResult };
    try {
      record = JSON.parse(line);
    } catch {
      // The last line of a run killed mid-write may be cut off: that entry is simply asked again.
      if (index >= lines.length - 2) return;
      throw new EvalInputError(`${file}: line ${index + 1} is not valid JSON; the journal is damaged.`);
    }
    if (record.type === "header") settings = record.settings;
    else if (record.type === "entry" && record.variant && record.result) {
      const entries = done.get(record.variant) ?? new Map<string, EntryResult>();
      entries.set(record.result.id, record.result);
      done.set(record.variant, entries);
    }
  });
  return { settings, done };
}

/**
 * The report file's companion for `--resume`: every finished entry is appended to `<report>.partial.jsonl` at once,
 * so an interrupted run loses only the entries in flight; the finished report replaces it. Resuming reads the
 * journal (or, when the run had finished, the report itself) and refuses when the answers would not be comparable.
 */
export class EvalJournal {
  readonly path: string;
  readonly done: DoneEntries;

  private constructor(path: string, done: DoneEntries) {
    this.path = path;
    this.done = done;
  }

  static open(reportPath: string, settings: AnswerSettings, resume: boolean): EvalJournal {
    const path = journalPath(reportPath);
    let done: DoneEntries = new Map();
    if (!resume && existsSync(path)) {
      throw new EvalInputError(
        `${reportPath} has an unfinished run (${path}). Continue it with --resume, or delete that file to start over.`,
      );
    }
    if (resume) {
      let previous: AnswerSettings | undefined;
      if (existsSync(path)) {
        ({ settings: previous, done } = readJournal(path));
      } else if (existsSync(reportPath)) {
        let report: StoredReport;
        try {
          report = JSON.parse(readFileSync(reportPath, "utf8")) as StoredReport;
        } catch (error) {
          throw new EvalInputError(
            `--resume: ${reportPath} is not a readable report (${(error as Error).message}).`,
          );
        }
        previous = report.answerSettings;
        for (const variant of report.variants ?? [])
          done.set(variant.key, new Map(variant.entries.map((entry) => [entry.id, entry])));
      } else {
        throw new EvalInputError(`--resume: there is no report to continue at ${reportPath}.`);
      }
      if (previous) {
        const differ = sameSettings(previous, settings);
        if (differ.length > 0) {
          throw new EvalInputError(
            `--resume: ${reportPath} was made with another ${differ.join(", ")}; its answers cannot be mixed with these. Use another --out, or the same settings.`,
          );
        }
      }
    }
    // Rewritten whole once (header and what is kept), then appended to entry by entry.
    const lines = [JSON.stringify({ type: "header", version: 1, settings })];
    for (const [variant, entries] of done)
      for (const result of entries.values()) lines.push(JSON.stringify({ type: "entry", variant, result }));
    writeFileSync(`${path}.tmp`, `${lines.join("\n")}\n`);
    renameSync(`${path}.tmp`, path);
    return new EvalJournal(path, done);
  }

  /** Entries of one variant already answered. */
  doneFor(variant: string): ReadonlyMap<string, EntryResult> {
    return this.done.get(variant) ?? new Map();
  }

  append(variant: string, result: EntryResult): void {
    appendFileSync(this.path, `${JSON.stringify({ type: "entry", variant, result })}\n`);
  }

  /** The report is written: the journal has served. */
  finish(): void {
    rmSync(this.path, { force: true });
  }
}

/** Write a file whole or not at all (a reader never sees half a report). */
export function writeFileAtomically(path: string, text: string): void {
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
}
