import type { LoggedEvent, RunEventLog, RunEventRecord } from "./run-event-log.js";

/** The RunEventLog in memory: same numbering and batching semantics as SqliteRunEventLog, nothing survives. */
export class InMemoryRunEventLog implements RunEventLog {
  readonly #runs = new Map<string, RunEventRecord[]>();
  readonly #queue: RunEventRecord[] = [];
  #batch: Promise<void> | undefined;

  append(runId: string, event: LoggedEvent): Promise<number> {
    // A copy: what the log keeps must not change when the caller's object does. Numbered when committed.
    const record: RunEventRecord = {
      runId,
      seq: 0,
      event: structuredClone(event) as RunEventRecord["event"],
    };
    this.#queue.push(record);
    this.#batch ??= Promise.resolve().then(() => this.#commit());
    return this.#batch.then(() => record.seq);
  }

  #commit(): void {
    this.#batch = undefined;
    for (const record of this.#queue.splice(0)) {
      let events = this.#runs.get(record.runId);
      if (!events) this.#runs.set(record.runId, (events = []));
      record.seq = events.length + 1;
      events.push(record);
    }
  }

  async list(runId: string, after = 0, limit = Number.POSITIVE_INFINITY): Promise<RunEventRecord[]> {
    const events = this.#runs.get(runId) ?? [];
    // seq n sits at index n - 1: no search needed.
    return events.slice(Math.max(0, after), Math.max(0, after) + limit).map((r) => structuredClone(r));
  }

  async lastSeq(runId: string): Promise<number> {
    return this.#runs.get(runId)?.length ?? 0;
  }

  async deleteRuns(runIds: readonly string[]): Promise<void> {
    await this.flush();
    for (const id of runIds) this.#runs.delete(id);
  }

  async flush(): Promise<void> {
    await this.#batch;
  }
}
