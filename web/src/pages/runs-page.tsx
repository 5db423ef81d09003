import { useWindowVirtualizer } from "@tanstack/react-virtual";
import { Select } from "radix-ui";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { api, errorText } from "../api/http.js";
import type { RunStatus, RunSummary, RunView, ToolInfo } from "../api/types.js";
import { ApprovalPanel } from "../components/approval-panel.js";
import { Icon, Spinner } from "../components/icons.js";
import { JsonTree } from "../components/json-tree.js";
import { ResultViewer } from "../components/result-viewer.js";
import { formatAgo, formatDuration, formatTime, truncate } from "../lib/format.js";
import { Link, navigate, queryParam, usePath } from "../lib/router.js";
import {
  type CallState,
  describeStopReason,
  type RunState,
  type StepInfo,
  type TimelineItem,
} from "../runs/run-state.js";
import { useStore } from "../state/external-store.js";
import { pendingStore } from "../state/pending.js";
import { cancelRun, runLog, useRun } from "../state/runs.js";
import { toolsStore } from "../state/tools.js";

const STATUSES: Array<RunStatus | "all"> = ["all", "running", "paused", "finished", "stopped"];
const STATUS_TONE: Record<string, string> = {
  running: "accent",
  paused: "warn",
  finished: "ok",
  stopped: "danger",
};

export function RunsPage({ runId }: { runId: string | undefined }) {
  return runId ? <RunDetail runId={runId} /> : <RunList />;
}

function RunList() {
  const path = usePath();
  const status = (queryParam(path, "status") as RunStatus | undefined) ?? undefined;
  const tool = queryParam(path, "tool");
  const { tools } = useStore(toolsStore);
  const [runs, setRuns] = useState<RunSummary[] | undefined>();
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<string | undefined>();
  const [loading, setLoading] = useState(false);

  const query = useCallback(
    (next?: string) => {
      const params = new URLSearchParams({ limit: "50" });
      if (status) params.set("status", status);
      if (tool) params.set("tool", tool);
      if (next) params.set("cursor", next);
      return `/api/runs?${params}`;
    },
    [status, tool],
  );
  const load = useCallback(
    async (more?: string) => {
      setLoading(true);
      try {
        const page = await api<{ data: RunSummary[]; nextCursor: string | null }>(query(more));
        setRuns((previous) => (more ? [...(previous ?? []), ...page.data] : page.data));
        setCursor(page.nextCursor);
        setError(undefined);
      } catch (failure) {
        setError(errorText(failure));
      } finally {
        setLoading(false);
      }
    },
    [query],
  );
  useEffect(() => {
    document.title = "Runs · toolbridge";
    void load();
  }, [load]);
  // The list follows the pending-approvals feed: a run that starts waiting (started on another instance, or by
  // `toolbridge run`, after the list was read) appears, and a run decided elsewhere shows its new status.
  const pending = useStore(pendingStore);
  const waitingByRun = useMemo(() => {
    const counts = new Map<string, number>();
    for (const call of pending.calls) counts.set(call.runId, (counts.get(call.runId) ?? 0) + 1);
    return counts;
  }, [pending.calls]);
  const waitingKey = [...waitingByRun.keys()].sort().join(" ");
  const seenWaitingKey = useRef<string | undefined>(undefined);
  useEffect(() => {
    if (!pending.loaded) return;
    const first = seenWaitingKey.current === undefined;
    const changed = seenWaitingKey.current !== waitingKey;
    seenWaitingKey.current = waitingKey;
    if (first || !changed) return;
    const reload = setTimeout(() => void load(), 200);
    return () => clearTimeout(reload);
  }, [waitingKey, pending.loaded, load]);
  const setFilter = (name: string, value: string | undefined) => {
    const params = new URLSearchParams(path.split("?")[1] ?? "");
    if (value) params.set(name, value);
    else params.delete(name);
    const search = params.toString();
    navigate(`/runs${search ? `?${search}` : ""}`, { replace: true });
  };
  const toolNames = [...new Set(tools.map((t: ToolInfo) => t.name))].sort();
  return (
    <div className="page runs-page">
      <div className="page-head">
        <h1>Runs</h1>
        <p className="muted">
          Every run on this server's database — also those started by toolbridge run — newest first.
        </p>
        <div className="filters">
          <FilterSelect
            label="Status"
            value={status ?? "all"}
            options={STATUSES.map((s) => [s, s === "all" ? "any status" : s])}
            onChange={(value) => setFilter("status", value === "all" ? undefined : value)}
          />
          <FilterSelect
            label="Tool"
            value={tool ?? "__any"}
            options={[["__any", "any tool"], ...toolNames.map((name) => [name, name] as [string, string])]}
            onChange={(value) => setFilter("tool", value === "__any" ? undefined : value)}
          />
          <button type="button" className="button button-small" onClick={() => void load()}>
            <Icon name="refresh" /> Refresh
          </button>
        </div>
      </div>
      {error ? (
        <p className="form-errors" role="alert">
          {error}
        </p>
      ) : null}
      {runs === undefined ? <Spinner label="Loading runs" /> : null}
      {runs?.length === 0 ? <p className="muted">No run matches.</p> : null}
      {runs && runs.length > 0 ? (
        <div className="table-scroll">
          <table className="runs-table">
            <caption className="visually-hidden">Runs</caption>
            <thead>
              <tr>
                <th scope="col">Run</th>
                <th scope="col">Status</th>
                <th scope="col" className="wide-only">
                  Model
                </th>
                <th scope="col" className="wide-only">
                  Steps
                </th>
                <th scope="col">Tool calls</th>
                <th scope="col" className="wide-only">
                  Tools
                </th>
                <th scope="col" className="wide-only">
                  Updated
                </th>
              </tr>
            </thead>
            <tbody>
              {runs.map((run) => (
                <tr key={run.runId}>
                  <td>
                    <Link to={`/runs/${encodeURIComponent(run.runId)}`}>{run.runId}</Link>
                  </td>
                  <td>
                    <span className={`badge badge-${STATUS_TONE[run.status] ?? "neutral"}`}>
                      {run.status}
                    </span>{" "}
                    <span className="small muted">
                      {describeStopReason(run.stopReason, { steps: run.steps, toolCalls: run.toolCalls }) ??
                        ""}
                    </span>
                  </td>
                  <td className="wide-only model-cell">{run.model}</td>
                  <td className="wide-only">{run.steps}</td>
                  <td>
                    {run.toolCalls}
                    {waitingByRun.get(run.runId) ? (
                      <span className="small muted"> + {waitingByRun.get(run.runId)} waiting</span>
                    ) : null}
                  </td>
                  <td className="small wide-only">{(run.tools ?? []).join(", ")}</td>
                  <td className="small wide-only">{formatAgo(run.updatedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {cursor ? (
        <button type="button" className="button" disabled={loading} onClick={() => void load(cursor)}>
          Load more
        </button>
      ) : null}
    </div>
  );
}

function FilterSelect(props: {
  label: string;
  value: string;
  options: Array<[string, string]>;
  onChange: (value: string) => void;
}) {
  return (
    <div className="filter">
      <span className="small muted" aria-hidden="true">
        {props.label}
      </span>
      <Select.Root value={props.value} onValueChange={props.onChange}>
        <Select.Trigger className="select-trigger" aria-label={`Filter by ${props.label.toLowerCase()}`}>
          <Select.Value />
          <Icon name="chevron" className="select-chevron" />
        </Select.Trigger>
        <Select.Portal>
          <Select.Content className="select-content" position="popper" sideOffset={4}>
            <Select.Viewport>
              {props.options.map(([value, text]) => (
                <Select.Item key={value} value={value} className="select-item">
                  <Select.ItemText>{text}</Select.ItemText>
                </Select.Item>
              ))}
            </Select.Viewport>
          </Select.Content>
        </Select.Portal>
      </Select.Root>
    </div>
  );
}

type Row =
  | { kind: "step"; key: string; step: StepInfo; calls: number }
  | { kind: "turn"; key: string; items: TimelineItem[] }
  | { kind: "call"; key: string; call: CallState };

/** A run's steps as rows: each step's model turn (text, reasoning, tokens, timing), then its calls. */
function rowsOf(run: RunState): Row[] {
  const steps = new Map<number, StepInfo>();
  for (const step of run.steps) steps.set(step.step, step);
  for (const call of Object.values(run.calls))
    if (!steps.has(call.step))
      steps.set(call.step, {
        step: call.step,
        startedAt: undefined,
        finishedAt: undefined,
        finishReason: undefined,
        inputTokens: undefined,
        outputTokens: undefined,
        toolCalls: undefined,
      });
  const rows: Row[] = [];
  for (const step of [...steps.values()].sort((a, b) => a.step - b.step)) {
    const calls = Object.values(run.calls).filter((call) => call.step === step.step);
    rows.push({ kind: "step", key: `step-${step.step}`, step, calls: calls.length });
    const items = run.items.filter(
      (item) =>
        (item.kind === "text" || item.kind === "reasoning" || item.kind === "error") &&
        item.step === step.step,
    );
    if (items.length > 0) rows.push({ kind: "turn", key: `turn-${step.step}`, items });
    for (const call of calls) rows.push({ kind: "call", key: call.callId, call });
  }
  return rows;
}

function RunDetail({ runId }: { runId: string }) {
  const run = useRun(runId);
  const [view, setView] = useState<RunView | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    document.title = `${runId} · Runs · toolbridge`;
    api<RunView>(`/api/runs/${encodeURIComponent(runId)}`)
      .then(setView)
      .catch((failure: unknown) => setError(errorText(failure)));
  }, [runId]);
  const rows = useMemo(() => rowsOf(run), [run]);
  const list = useRef<HTMLDivElement>(null);
  const virtualizer = useWindowVirtualizer({
    count: rows.length,
    estimateSize: () => 44,
    overscan: 10,
    scrollMargin: list.current?.offsetTop ?? 0,
    getItemKey: (index) => rows[index]?.key ?? index,
  });
  const tokens = run.steps.reduce(
    (sum, step) => ({
      input: sum.input + (step.inputTokens ?? 0),
      output: sum.output + (step.outputTokens ?? 0),
    }),
    { input: 0, output: 0 },
  );
  const exportJson = () => {
    const blob = new Blob(
      [JSON.stringify({ exportedAt: new Date().toISOString(), run: view, events: runLog(runId) }, null, 2)],
      { type: "application/json" },
    );
    const url = URL.createObjectURL(blob);
    const link = document.createElement("a");
    link.href = url;
    link.download = `${runId}.json`;
    link.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  };
  const live = run.status === "running" || run.status === "paused";
  const stop = describeStopReason(run.stopReason, {
    steps: run.steps.length,
    toolCalls: Object.keys(run.calls).length,
  });
  return (
    <div className="page run-detail">
      <div className="page-head">
        <p className="small">
          <Link to="/runs">← All runs</Link>
        </p>
        <h1>
          Run <code>{runId}</code>
        </h1>
        {error ? (
          <p className="form-errors" role="alert">
            {error}
          </p>
        ) : null}
        <dl className="facts">
          <div>
            <dt>Status</dt>
            <dd>
              <span className={`badge badge-${STATUS_TONE[run.status] ?? "neutral"}`}>{run.status}</span>{" "}
              {stop ?? ""}
            </dd>
          </div>
          {run.model ? (
            <div>
              <dt>Model</dt>
              <dd>{run.model}</dd>
            </div>
          ) : null}
          {run.startedAt ? (
            <div>
              <dt>Started</dt>
              <dd>{formatTime(run.startedAt)}</dd>
            </div>
          ) : null}
          {run.startedAt && run.finishedAt ? (
            <div>
              <dt>Took</dt>
              <dd>{formatDuration(run.finishedAt - run.startedAt)}</dd>
            </div>
          ) : null}
          <div>
            <dt>Steps</dt>
            <dd>{Math.max(run.steps.length, view?.steps.length ?? 0)}</dd>
          </div>
          <div>
            <dt>Tool calls</dt>
            <dd>{Object.keys(run.calls).length}</dd>
          </div>
          {tokens.input + tokens.output > 0 ? (
            <div>
              <dt>Tokens</dt>
              <dd>
                {tokens.input} in · {tokens.output} out
              </dd>
            </div>
          ) : null}
        </dl>
        <div className="form-actions">
          <button type="button" className="button button-small" onClick={exportJson} disabled={!run.loaded}>
            <Icon name="download" /> Export as JSON
          </button>
          {run.conversationId ? (
            <Link to={`/chat/${encodeURIComponent(run.conversationId)}`} className="button button-small">
              Open the conversation
            </Link>
          ) : null}
          {live ? (
            <button
              type="button"
              className="button button-small button-danger"
              onClick={() => void cancelRun(runId).catch((failure: unknown) => setError(errorText(failure)))}
            >
              <Icon name="stop" /> Cancel run
            </button>
          ) : null}
        </div>
        {run.answer ? (
          <section className="run-answer" aria-label="Answer">
            <div className="result-label">Answer</div>
            <div className="answer">{run.answer}</div>
          </section>
        ) : null}
      </div>
      {!run.loaded ? <Spinner label="Loading the run" /> : null}
      <div ref={list} className="run-rows" role="list" aria-label="Steps and calls">
        <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
          {virtualizer.getVirtualItems().map((item) => {
            const row = rows[item.index];
            if (!row) return null;
            return (
              <div
                key={item.key}
                role="listitem"
                data-index={item.index}
                ref={virtualizer.measureElement}
                style={{
                  position: "absolute",
                  top: 0,
                  left: 0,
                  width: "100%",
                  transform: `translateY(${item.start - virtualizer.options.scrollMargin}px)`,
                }}
              >
                <RunRow row={row} runId={runId} />
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}

function RunRow({ row, runId }: { row: Row; runId: string }) {
  if (row.kind === "step") {
    const { step } = row;
    const took =
      step.startedAt !== undefined && step.finishedAt !== undefined
        ? formatDuration(step.finishedAt - step.startedAt)
        : undefined;
    return (
      <h2 className="step-head">
        Step {step.step}
        <span className="muted small">
          {took ? ` · ${took}` : ""}
          {step.inputTokens !== undefined || step.outputTokens !== undefined
            ? ` · ${step.inputTokens ?? 0} in / ${step.outputTokens ?? 0} out tokens`
            : ""}
          {step.finishReason ? ` · finished: ${step.finishReason}` : ""}
          {` · ${row.calls} call${row.calls === 1 ? "" : "s"}`}
        </span>
      </h2>
    );
  }
  if (row.kind === "turn")
    return (
      <div className="step-turn">
        {row.items.map((item) =>
          item.kind === "reasoning" ? (
            <details key={item.key} className="reasoning">
              <summary>Reasoning</summary>
              <div className="reasoning-text">{item.text}</div>
            </details>
          ) : item.kind === "error" ? (
            <div key={item.key} className="run-error">
              <Icon name="alert" /> {item.message}
            </div>
          ) : item.kind === "text" ? (
            <div key={item.key} className="model-text">
              {item.text}
            </div>
          ) : null,
        )}
      </div>
    );
  return <CallRow call={row.call} runId={runId} />;
}

function CallRow({ call, runId }: { call: CallState; runId: string }) {
  const decision = call.decision;
  const { byName } = useStore(toolsStore);
  return (
    <details className="call-row" open={call.phase === "awaiting-approval" ? true : undefined}>
      <summary>
        <span className="tool-name">{call.name}</span>{" "}
        <code className="chip">{truncate(JSON.stringify(call.arguments ?? {}), 60)}</code>{" "}
        <span
          className={`badge badge-${call.phase === "done" ? "ok" : call.phase === "error" || call.phase === "denied" || call.phase === "invalid" ? "danger" : "neutral"}`}
        >
          {call.phase}
        </span>
        {typeof call.durationMs === "number" ? (
          <span className="duration"> {formatDuration(call.durationMs)}</span>
        ) : null}
        {decision ? (
          <span className="small muted">
            {" "}
            · {decision.decision} by {decision.by ?? "policy"}
            {decision.at !== null ? ` at ${formatTime(decision.at)}` : ""}
            {decision.reason ? `: “${decision.reason}”` : ""}
          </span>
        ) : null}
      </summary>
      <div className="call-row-body">
        {/* A waiting call's approval panel shows its complete arguments: once is enough. */}
        {call.phase === "awaiting-approval" ? null : (
          <>
            <div className="result-label">Arguments</div>
            <JsonTree value={call.arguments ?? {}} label={`Arguments of ${call.name}`} />
          </>
        )}
        {decision?.originalArguments ? (
          <>
            <div className="result-label">The model asked for</div>
            <JsonTree value={decision.originalArguments} label="Original arguments" />
          </>
        ) : null}
        {call.phase === "awaiting-approval" ? (
          <ApprovalPanel
            runId={runId}
            callId={call.callId}
            toolName={call.name}
            args={call.arguments ?? {}}
            tool={byName.get(call.name)}
          />
        ) : null}
        {call.message ? <p className="form-errors">{call.message}</p> : null}
        {call.result ? <ResultViewer result={call.result} toolName={call.name} /> : null}
      </div>
    </details>
  );
}
