import { useVirtualizer } from "@tanstack/react-virtual";
import { Collapsible } from "radix-ui";
import { memo, useRef, useState } from "react";
import type { ToolInfo } from "../api/types.js";
import { formatDuration, formatTime, truncate } from "../lib/format.js";
import { mainArgument } from "../lib/main-argument.js";
import { useNow } from "../lib/use-now.js";
import type { CallPhase, CallState } from "../runs/run-state.js";
import { ApprovalPanel, DecideAllBar } from "./approval-panel.js";
import { Icon, type IconName, Spinner } from "./icons.js";
import { JsonTree } from "./json-tree.js";
import { ResultViewer } from "./result-viewer.js";
import { sourceLabel } from "./tool-meta.js";

const PHASES: Record<CallPhase, { label: string; icon: IconName | "spinner"; tone: string }> = {
  streaming: { label: "Writing arguments", icon: "spinner", tone: "neutral" },
  checked: { label: "Checked", icon: "clock", tone: "neutral" },
  invalid: { label: "Invalid call", icon: "alert", tone: "danger" },
  "awaiting-approval": { label: "Awaiting approval", icon: "shield", tone: "warn" },
  approved: { label: "Approved", icon: "check", tone: "neutral" },
  running: { label: "Running", icon: "spinner", tone: "accent" },
  done: { label: "Done", icon: "check", tone: "ok" },
  error: { label: "Error", icon: "alert", tone: "danger" },
  denied: { label: "Denied", icon: "ban", tone: "danger" },
  interrupted: { label: "Interrupted", icon: "alert", tone: "warn" },
  expired: { label: "Expired", icon: "ban", tone: "neutral" },
};

function resultSummary(call: CallState): string | undefined {
  const first = call.result?.content?.find((block) => block.type === "text") as { text?: string } | undefined;
  // Only its start is looked at: a result may be megabytes.
  const text =
    typeof first?.text === "string" ? first.text.slice(0, 200).replace(/\s+/g, " ").trim() : undefined;
  return text ? truncate(text, 80) : undefined;
}

function Duration({ call }: { call: CallState }) {
  const running = call.phase === "running" && call.startedAt !== undefined;
  const now = useNow(running);
  if (running) return <span className="duration live">{formatDuration(now - (call.startedAt ?? now))}</span>;
  if (typeof call.durationMs === "number")
    return <span className="duration">{formatDuration(call.durationMs)}</span>;
  return null;
}

/**
 * One tool call, inline in the chat: a group named after its tool whose header says everything at a glance (status,
 * tool, source, main argument, duration, the result's first line) and whose body holds the arguments, the decision,
 * and the result or error. Opens by itself when it needs the person (approval) or failed.
 */
export const ToolCallCard = memo(function ToolCallCard(props: {
  call: CallState;
  runId: string;
  tool: ToolInfo | undefined;
  runPaused?: boolean;
}) {
  const { call, runId, tool, runPaused } = props;
  const needsPerson = call.phase === "awaiting-approval";
  // A card that asked the person stays open after the decision, so what was decided stays in view.
  const asked = useRef(false);
  if (needsPerson) asked.current = true;
  const [openChoice, setOpenChoice] = useState<boolean | undefined>();
  const open = openChoice ?? (asked.current || call.phase === "invalid");
  const phase = PHASES[call.phase];
  const chip = mainArgument(call.arguments, tool?.inputSchema);
  const summary = call.phase === "done" || call.phase === "error" ? resultSummary(call) : undefined;
  return (
    <section
      className={`tool-card tone-${phase.tone}`}
      role="group"
      aria-label={call.name}
      data-phase={call.phase}
    >
      <Collapsible.Root open={open} onOpenChange={setOpenChoice}>
        <Collapsible.Trigger className="tool-card-header">
          <span className="tool-status" title={phase.label}>
            {phase.icon === "spinner" ? <Spinner /> : <Icon name={phase.icon} />}
          </span>
          <span className="tool-name">{call.name}</span>
          <span className="tool-source">{sourceLabel(tool?.source)}</span>
          {chip ? <code className="chip">{truncate(chip, 48)}</code> : null}
          <span className={`badge badge-${phase.tone}`}>{phase.label}</span>
          <Duration call={call} />
          {summary ? <span className="tool-summary">→ {summary}</span> : null}
          <Icon name="chevron" className="disclosure" />
        </Collapsible.Trigger>
        <Collapsible.Content className="tool-card-body">
          {call.phase === "streaming" && call.argsText ? (
            <pre className="args-streaming">{call.argsText}</pre>
          ) : null}
          {needsPerson ? (
            <ApprovalPanel
              inCard
              runId={runId}
              callId={call.callId}
              toolName={call.name}
              args={call.arguments ?? {}}
              tool={tool}
            />
          ) : call.arguments ? (
            <div className="tool-args">
              <div className="result-label">Arguments</div>
              <JsonTree value={call.arguments} label={`Arguments of ${call.name}`} />
            </div>
          ) : null}
          <DecisionLine call={call} />
          {call.phase === "approved" && runPaused ? (
            <p className="muted small">It runs once every call of this step is decided.</p>
          ) : null}
          {call.phase === "invalid" && call.message ? (
            <div className="result result-error">
              <div className="result-error-title">
                <Icon name="alert" /> Not run
              </div>
              <p>{call.message}</p>
            </div>
          ) : null}
          {call.phase === "expired" ? (
            <p className="muted">Its run ended before anyone decided; it will never run.</p>
          ) : null}
          {call.phase === "interrupted" && !call.result ? (
            <p className="muted">The run stopped while this call ran; it was not run again.</p>
          ) : null}
          {call.result && call.phase !== "denied" ? (
            <ResultViewer result={call.result} toolName={call.name} />
          ) : null}
          {/* An MCP App view (SEP-1865) of this call's result will render here, in its own sandboxed frame. */}
        </Collapsible.Content>
      </Collapsible.Root>
    </section>
  );
});

function DecisionLine({ call }: { call: CallState }) {
  const decision = call.decision;
  if (!decision) return null;
  const who = decision.by === "policy" || decision.by === null ? "by its policy" : `by ${decision.by}`;
  const when = decision.at !== null ? ` at ${formatTime(decision.at)}` : "";
  if (decision.decision === "denied")
    return (
      <p className="decision decision-denied">
        {call.phase === "expired" ? "Expired: " : "Denied "}
        {call.phase === "expired" ? "the run was cancelled" : who}
        {when}
        {decision.reason && call.phase !== "expired" ? `: “${decision.reason}”` : ""}
      </p>
    );
  return (
    <div className="decision decision-approved">
      Approved {who}
      {when}
      {decision.originalArguments ? (
        <details>
          <summary>with edited arguments (what the model asked for)</summary>
          <JsonTree value={decision.originalArguments} label="The model's original arguments" />
        </details>
      ) : null}
    </div>
  );
}

/** More calls than this in one group are drawn by a virtual list. */
const VIRTUAL_AFTER = 40;

/**
 * Consecutive calls folded into one group ("12 tool calls: 11 done, 1 running"), open while few or while one needs the
 * person; hundreds of calls scroll in a virtual list so the page stays responsive.
 */
export function ToolCallGroup(props: {
  calls: CallState[];
  runId: string;
  tools: ReadonlyMap<string, ToolInfo>;
  runPaused: boolean;
}) {
  const { calls, runId, tools, runPaused } = props;
  const needsPerson = calls.some((call) => call.phase === "awaiting-approval");
  const [openChoice, setOpenChoice] = useState<boolean | undefined>();
  const open = openChoice ?? (needsPerson || calls.length <= 5);
  const counts = new Map<string, number>();
  for (const call of calls)
    counts.set(PHASES[call.phase].label, (counts.get(PHASES[call.phase].label) ?? 0) + 1);
  const names = new Map<string, number>();
  for (const call of calls) names.set(call.name, (names.get(call.name) ?? 0) + 1);
  const label = `${calls.length} tool calls`;
  return (
    <section className="tool-group" role="group" aria-label={label}>
      <Collapsible.Root open={open} onOpenChange={setOpenChoice}>
        <Collapsible.Trigger className="tool-group-header">
          <span className="tool-name">{label}</span>
          <span className="muted">
            {[...names]
              .slice(0, 4)
              .map(([name, n]) => (n > 1 ? `${name} ×${n}` : name))
              .join(", ")}
            {names.size > 4 ? ", …" : ""}
          </span>
          <span className="muted">
            · {[...counts].map(([phase, n]) => `${n} ${phase.toLowerCase()}`).join(", ")}
          </span>
          <Icon name="chevron" className="disclosure" />
        </Collapsible.Trigger>
        <Collapsible.Content>
          <DecideAllBar
            runId={runId}
            callIds={calls.filter((call) => call.phase === "awaiting-approval").map((call) => call.callId)}
          />
          {calls.length > VIRTUAL_AFTER ? (
            <VirtualCalls calls={calls} runId={runId} tools={tools} runPaused={runPaused} />
          ) : (
            <div className="tool-group-list">
              {calls.map((call) => (
                <ToolCallCard
                  key={call.callId}
                  call={call}
                  runId={runId}
                  tool={tools.get(call.name)}
                  runPaused={runPaused}
                />
              ))}
            </div>
          )}
        </Collapsible.Content>
      </Collapsible.Root>
    </section>
  );
}

function VirtualCalls(props: {
  calls: CallState[];
  runId: string;
  tools: ReadonlyMap<string, ToolInfo>;
  runPaused: boolean;
}) {
  const parent = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: props.calls.length,
    getScrollElement: () => parent.current,
    // A collapsed card with its gap; measured once drawn (a card opened, or wrapped on a narrow screen, is taller).
    estimateSize: () => 52,
    overscan: 8,
    getItemKey: (index) => props.calls[index]?.callId ?? index,
  });
  return (
    <div
      ref={parent}
      className="virtual-calls"
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling list must be reachable by keyboard to be scrolled
      tabIndex={0}
      role="region"
      aria-label={`${props.calls.length} tool calls, scrollable`}
    >
      <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
        {virtualizer.getVirtualItems().map((item) => {
          const call = props.calls[item.index];
          if (!call) return null;
          return (
            <div
              key={item.key}
              data-index={item.index}
              ref={virtualizer.measureElement}
              style={{
                position: "absolute",
                top: 0,
                left: 0,
                width: "100%",
                transform: `translateY(${item.start}px)`,
              }}
            >
              <ToolCallCard
                call={call}
                runId={props.runId}
                tool={props.tools.get(call.name)}
                runPaused={props.runPaused}
              />
            </div>
          );
        })}
      </div>
    </div>
  );
}
