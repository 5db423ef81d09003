import type { RunRecord, RunStore } from "../../store/store.js";

/** A tool call waiting for a person's decision, with what a page needs to show it without another request. */
export interface PendingApproval {
  runId: string;
  conversationId: string;
  callId: string;
  name: string;
  /** The full arguments the model asked for: never cut, whatever their size. */
  arguments: Record<string, unknown>;
  step: number;
  /** When the run paused for it. */
  requestedAt: string;
  /** Which program drives the run: `serve` (Runs API, web UI), `cli` (`toolbridge run`), else `library`. */
  startedBy: "serve" | "cli" | "library";
  model: string;
}

/** How many paused runs one listing reads: the store lists newest first. */
const PAUSED_WINDOW = 1000;

function startedBy(run: RunRecord): PendingApproval["startedBy"] {
  const options = run.options as { server?: unknown; cli?: unknown };
  if (options.server !== undefined) return "serve";
  if (options.cli !== undefined) return "cli";
  return "library";
}

/**
 * Every pending call of every paused run in the store, oldest run first — whichever process started the run (another
 * `serve`, `toolbridge run`, a library program on the same database). Read from the store each time, never from
 * memory: the store is the one place that knows what is still pending.
 */
export async function listPendingApprovals(store: RunStore): Promise<PendingApproval[]> {
  const paused = await store.listRuns({ status: "paused", limit: PAUSED_WINDOW });
  const out: PendingApproval[] = [];
  for (const run of paused.reverse()) {
    for (const call of await store.listToolCalls(run.id)) {
      if (call.state !== "pending") continue;
      out.push({
        runId: run.id,
        conversationId: run.conversationId,
        callId: call.id,
        name: call.name,
        arguments: call.arguments,
        step: call.step,
        requestedAt: run.updatedAt,
        startedBy: startedBy(run),
        model: run.model,
      });
    }
  }
  return out;
}
