import { Dialog } from "radix-ui";
import { useState } from "react";
import type { PendingApproval } from "../api/types.js";
import { formatAgo } from "../lib/format.js";
import { Link } from "../lib/router.js";
import { useStore } from "../state/external-store.js";
import { pendingStore } from "../state/pending.js";
import { toolsStore } from "../state/tools.js";
import { ApprovalPanel, DecideAllBar } from "./approval-panel.js";
import { Icon } from "./icons.js";

const STARTED_BY: Record<PendingApproval["startedBy"], string> = {
  serve: "a run of this server",
  cli: "started by toolbridge run",
  library: "started by a program on the same database",
};

/**
 * "N pending" in the header: every pending call of every run on the server's database — runs of this page, another
 * tab, the CLI or another serve — so no prompt is lost off screen. Each is decided here as in the chat.
 */
export function PendingTray() {
  const { calls } = useStore(pendingStore);
  const { byName } = useStore(toolsStore);
  const [open, setOpen] = useState(false);
  const byRun = new Map<string, PendingApproval[]>();
  for (const call of calls) byRun.set(call.runId, [...(byRun.get(call.runId) ?? []), call]);
  const count = calls.length;
  const label = count === 1 ? "1 pending approval" : `${count} pending approvals`;
  return (
    <Dialog.Root open={open} onOpenChange={setOpen}>
      <Dialog.Trigger className={`pending-button${count > 0 ? " has-pending" : ""}`} aria-label={label}>
        <Icon name="shield" />
        <span aria-hidden="true">{count} pending</span>
      </Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="dialog-overlay" />
        <Dialog.Content className="dialog dialog-wide pending-dialog">
          <Dialog.Title className="dialog-title">Pending approvals</Dialog.Title>
          <Dialog.Description className="muted">
            {count === 0
              ? "Nothing waits for a decision."
              : `${label} across ${byRun.size} run${byRun.size === 1 ? "" : "s"}. Each call runs only once approved.`}
          </Dialog.Description>
          {[...byRun].map(([runId, runCalls]) => {
            const first = runCalls[0] as PendingApproval;
            return (
              <section key={runId} className="pending-run" aria-label={`Run ${runId}`}>
                <header className="pending-run-head">
                  <span>
                    Run <code>{runId}</code> · {first.model} · {STARTED_BY[first.startedBy]} · paused{" "}
                    {formatAgo(first.requestedAt)}
                  </span>
                  <span className="pending-links" onClickCapture={() => setOpen(false)}>
                    {first.startedBy === "serve" ? (
                      <Link to={`/chat/${encodeURIComponent(first.conversationId)}`}>
                        Open the conversation
                      </Link>
                    ) : null}
                    <Link to={`/runs/${encodeURIComponent(runId)}`}>Open the run</Link>
                  </span>
                </header>
                <DecideAllBar runId={runId} callIds={runCalls.map((call) => call.callId)} />
                {runCalls.map((call) => (
                  <div key={call.callId} className="pending-call" role="group" aria-label={call.name}>
                    <div className="tool-name">{call.name}</div>
                    <ApprovalPanel
                      runId={runId}
                      callId={call.callId}
                      toolName={call.name}
                      args={call.arguments}
                      tool={byName.get(call.name)}
                    />
                  </div>
                ))}
              </section>
            );
          })}
          <div className="form-actions">
            <Dialog.Close asChild>
              <button type="button" className="button">
                Close
              </button>
            </Dialog.Close>
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
