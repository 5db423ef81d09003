import { appendFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import { type Redactor, redactDeep } from "../tools/redact-secrets.js";
import type { AgentEvent } from "./events.js";

/**
 * One JSONL file per run (`<dir>/<runId>.jsonl`), one event per line, secrets redacted. Appended synchronously so
 * the trace of a crashed process ends at the last thing it did.
 */
export class TraceWriter {
  #ready = false;

  constructor(
    readonly dir: string,
    private readonly redact: Redactor | undefined,
  ) {}

  fileFor(runId: string): string {
    return path.join(this.dir, `${runId.replace(/[^A-Za-z0-9_.-]/g, "_")}.jsonl`);
  }

  write(event: AgentEvent): void {
    if (!this.#ready) {
      mkdirSync(this.dir, { recursive: true });
      this.#ready = true;
    }
    const safe = this.redact ? redactDeep(event, this.redact) : event;
    appendFileSync(this.fileFor(event.runId), `${JSON.stringify(safe)}\n`);
  }
}
