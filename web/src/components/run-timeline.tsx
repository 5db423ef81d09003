import type { AgentMessage } from "../api/types.js";
import { describeStopReason, type RunState, type TimelineItem } from "../runs/run-state.js";
import { useStore } from "../state/external-store.js";
import { useRun } from "../state/runs.js";
import { toolsStore } from "../state/tools.js";
import { Icon, Spinner } from "./icons.js";
import { ToolCallCard, ToolCallGroup } from "./tool-call-card.js";

function noticeText(item: Extract<TimelineItem, { kind: "notice" }>): string {
  const words = item.eventType.replace(/[-_/]+/g, " ");
  const text = words.charAt(0).toUpperCase() + words.slice(1);
  const progress = item.event.progress;
  const message = typeof item.event.message === "string" ? ` — ${item.event.message}` : "";
  if (typeof progress === "number") {
    const percent = progress <= 1 ? Math.round(progress * 100) : Math.round(progress);
    return `${text} ${percent}%${message}`;
  }
  return `${text}${message}`;
}

/** A run in the chat, in step order: reasoning (folded), the answer as it streams, tool cards, errors where they happened, why it stopped. */
export function RunTimeline({ runId, messages }: { runId: string; messages?: AgentMessage[] }) {
  const run = useRun(runId, messages);
  const { byName } = useStore(toolsStore);
  const live = run.status === "running";
  const lastText = [...run.items].reverse().find((item) => item.kind === "text");
  return (
    <div className="run" data-run-id={runId} data-status={run.status}>
      {!run.loaded && run.items.length === 0 ? <Spinner label="Loading the run" /> : null}
      {run.items.map((item) => {
        switch (item.kind) {
          case "text":
            return (
              <div key={item.key} className={`answer${live && item === lastText ? " streaming" : ""}`}>
                {item.text}
              </div>
            );
          case "reasoning":
            return (
              <details key={item.key} className="reasoning">
                <summary>
                  {live && item === run.items[run.items.length - 1] ? "Thinking…" : "Reasoning"}
                </summary>
                <div className="reasoning-text">{item.text}</div>
              </details>
            );
          case "calls": {
            const calls = item.callIds.flatMap((id) => (run.calls[id] ? [run.calls[id]] : []));
            if (calls.length === 1 && calls[0])
              return (
                <ToolCallCard
                  key={item.key}
                  call={calls[0]}
                  runId={runId}
                  tool={byName.get(calls[0].name)}
                  runPaused={run.status === "paused"}
                />
              );
            return (
              <ToolCallGroup
                key={item.key}
                calls={calls}
                runId={runId}
                tools={byName}
                runPaused={run.status === "paused"}
              />
            );
          }
          case "error":
            return (
              <div key={item.key} className="run-error">
                <Icon name="alert" />
                <span>
                  {item.step ? `Step ${item.step}: ` : ""}
                  {item.message}
                </span>
              </div>
            );
          case "notice":
            return (
              <p key={item.key} className="notice">
                {noticeText(item)}
              </p>
            );
          default:
            return null;
        }
      })}
      <RunFooter run={run} />
    </div>
  );
}

function RunFooter({ run }: { run: RunState }) {
  if (run.status === "running" && run.loaded)
    return (
      <p className="run-status">
        <Spinner /> Working…
      </p>
    );
  if (run.status === "paused")
    return (
      <p className="run-status run-status-paused">
        <Icon name="pause" /> Paused: waiting for a decision on its tool calls.
      </p>
    );
  const words = describeStopReason(run.stopReason, {
    steps: run.steps.length,
    toolCalls: Object.keys(run.calls).length,
  });
  if (!words) return null;
  return (
    <p className={`run-status${run.status === "stopped" ? " run-status-stopped" : ""}`}>
      <Icon name={run.status === "stopped" ? "stop" : "alert"} />{" "}
      {words.charAt(0).toUpperCase() + words.slice(1)}.
    </p>
  );
}
