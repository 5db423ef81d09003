import { DecisionError, RunNotFoundError, RunStateError } from "../agent/agent-errors.js";
import type { AgentEvent } from "../agent/events.js";
import type { RunView } from "../agent/run-view.js";
import { ReplayError } from "../models/replay-model.js";
import { resultText } from "../tools/normalize-tool-result.js";
import { CliError } from "./cli-error.js";
import { inCliTerms } from "./cli-wording.js";
import { commandHint, type HintContext } from "./command-hint.js";

/** Errors of the agent that are the user's input, not a failure: exit 2 with the message. */
export function asCliError(error: unknown): unknown {
  if (
    error instanceof RunNotFoundError ||
    error instanceof RunStateError ||
    error instanceof DecisionError ||
    error instanceof ReplayError
  ) {
    return new CliError(error.message, 2);
  }
  return error;
}

function short(value: unknown, max = 200): string {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** Progress lines on stderr, so stdout keeps only the answer (or the JSON). */
export function describeEvent(event: AgentEvent): string | undefined {
  switch (event.type) {
    // Only a model the run loads itself (the CLI loads its own before the run, with a progress display).
    case "model-loading":
      return event.progress === undefined ? `… loading ${event.model}` : undefined;
    case "model-loaded":
      return `… loaded ${event.model} in ${(event.durationMs / 1000).toFixed(1)} s`;
    case "call-finished":
      return `→ ${event.callId} ${event.name} ${short(event.arguments)}`;
    case "call-invalid":
      return `✗ ${event.callId} ${event.name}: ${short(event.message)}`;
    case "tool-result":
      return `← ${event.callId} ${event.name} [${event.status}] ${short(resultText(event.result))}`;
    case "approval-requested":
      return `? approval needed: ${event.calls.map((c) => `${c.callId} ${c.name}`).join(", ")}`;
    case "error":
      return `! ${inCliTerms(event.message)}`;
    default:
      return undefined;
  }
}

/**
 * Print a run's outcome; returns the exit code (0 finished or paused, 1 stopped by a limit or error). A paused run
 * gets the exact commands that decide and resume it, with the `--db` this command was given, ready to paste.
 */
export function printRunView(
  view: RunView,
  json: boolean,
  error?: string | null,
  hint: HintContext = {},
): number {
  if (json) {
    process.stdout.write(`${JSON.stringify(view)}\n`);
  } else if (view.status === "paused") {
    process.stdout.write(
      `Run ${view.runId} paused: waiting for approval of ${view.pending.length} call(s):\n`,
    );
    for (const p of view.pending)
      process.stdout.write(`  ${p.callId}  ${p.name} ${short(p.arguments, 400)}\n`);
    process.stdout.write("Decide each call (approve or deny), then resume:\n");
    for (const p of view.pending) {
      process.stdout.write(`  ${commandHint(["runs", "approve", view.runId, p.callId], hint)}\n`);
      process.stdout.write(`  ${commandHint(["runs", "deny", view.runId, p.callId], hint)}\n`);
    }
    process.stdout.write(`  ${commandHint(["runs", "resume", view.runId], hint)}\n`);
  } else if (view.status === "finished") {
    process.stdout.write(`${view.answer ?? ""}\n`);
  } else {
    const why = error ?? view.error;
    process.stderr.write(
      `Run ${view.runId} ${view.status}: ${view.stopReason}${why ? ` (${inCliTerms(why)})` : ""}\n`,
    );
  }
  return view.status === "stopped" ? 1 : 0;
}
