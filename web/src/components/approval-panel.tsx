import { useId, useState } from "react";
import { api, errorText } from "../api/http.js";
import type { Decision, JsonObject, ToolInfo } from "../api/types.js";
import { decide } from "../state/runs.js";
import { replaceTool } from "../state/tools.js";
import { EditArgumentsDialog } from "./edit-arguments-dialog.js";
import { AnnotationBadges, sourceLabel, whyItAsks } from "./tool-meta.js";

/**
 * The decision on one pending call: what the tool is and may do, why it asks, the complete arguments (never cut),
 * and Approve / Deny (with an optional reason the model sees) / Edit arguments / Always allow. Every surface that
 * asks (the chat's card, the pending list) shows this same panel.
 */
export function ApprovalPanel(props: {
  runId: string;
  callId: string;
  toolName: string;
  args: JsonObject;
  tool: ToolInfo | undefined;
  /** Inside a tool card, whose header already says the state and the source. */
  inCard?: boolean;
}) {
  const { runId, callId, toolName, args, tool, inCard } = props;
  const [denying, setDenying] = useState(false);
  const [reason, setReason] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const reasonId = useId();
  const whyId = useId();

  const send = async (decision: Decision) => {
    setBusy(true);
    setError(undefined);
    try {
      await decide(runId, [decision]);
    } catch (failure) {
      setError(errorText(failure));
      throw failure;
    } finally {
      setBusy(false);
    }
  };
  const attempt = (decision: Decision) => void send(decision).catch(() => {});

  const alwaysAllow = async () => {
    setBusy(true);
    setError(undefined);
    try {
      // The policy is written through the Tools API (shown there, with its source, and revocable), then this call runs.
      const updated = await api<ToolInfo>(`/api/tools/${encodeURIComponent(toolName)}`, {
        method: "PATCH",
        body: { policy: "always" },
      });
      if (updated && typeof updated === "object" && "source" in updated) replaceTool(updated);
      await decide(runId, [{ callId, decision: "approve" }]);
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="approval" role="group" aria-label={`Approval of ${toolName}`}>
      <div className="approval-head">
        {inCard ? null : <span className="badge badge-warn">Awaiting approval</span>}
        {inCard ? null : <span className="muted">{sourceLabel(tool?.source)}</span>}
        <AnnotationBadges annotations={tool?.annotations} />
      </div>
      <p className="approval-why" id={whyId}>
        {whyItAsks(tool)}
      </p>
      <div className="approval-args">
        <div className="result-label">Arguments</div>
        <pre className="args-full">{JSON.stringify(args, null, 2)}</pre>
      </div>
      {error ? (
        <p className="form-errors" role="alert">
          {error}
        </p>
      ) : null}
      {denying ? (
        <form
          className="deny-form"
          onSubmit={(event) => {
            event.preventDefault();
            attempt({ callId, decision: "deny", ...(reason.trim() ? { reason: reason.trim() } : {}) });
          }}
        >
          <label htmlFor={reasonId} className="field-label">
            Reason (optional; the model is told)
          </label>
          <input
            id={reasonId}
            className="input"
            value={reason}
            onChange={(event) => setReason(event.target.value)}
            // biome-ignore lint/a11y/noAutofocus: the person just asked to deny: the reason is what they type next
            autoFocus
          />
          <div className="form-actions">
            <button type="submit" className="button button-danger" disabled={busy}>
              Deny
            </button>
            <button type="button" className="button" onClick={() => setDenying(false)}>
              Back
            </button>
          </div>
        </form>
      ) : (
        <div className="approval-actions">
          <button
            type="button"
            className="button button-primary"
            disabled={busy}
            onClick={() => attempt({ callId, decision: "approve" })}
          >
            Approve
          </button>
          <button
            type="button"
            className="button button-danger"
            disabled={busy}
            onClick={() => setDenying(true)}
          >
            Deny
          </button>
          <EditArgumentsDialog
            toolName={toolName}
            schema={tool?.inputSchema}
            initial={args}
            disabled={busy}
            onApprove={(values) => send({ callId, decision: "approve", arguments: values })}
          />
          <button
            type="button"
            className="button"
            disabled={busy || !tool}
            onClick={() => void alwaysAllow()}
            aria-describedby={`${whyId}-always`}
          >
            Always allow
          </button>
          <span id={`${whyId}-always`} className="visually-hidden">
            Approves this call and stops asking for {toolName}; change it back on the Tools page.
          </span>
        </div>
      )}
    </div>
  );
}

/** Approve all / Deny all for several pending calls of one run (each can still be decided on its own). */
export function DecideAllBar({ runId, callIds }: { runId: string; callIds: string[] }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  if (callIds.length < 2) return null;
  const all = async (decision: "approve" | "deny") => {
    setBusy(true);
    setError(undefined);
    try {
      await decide(
        runId,
        callIds.map((callId) => ({ callId, decision })),
      );
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="decide-all" role="group" aria-label={`${callIds.length} pending calls`}>
      <span>{callIds.length} calls wait for a decision</span>
      <button
        type="button"
        className="button button-small"
        disabled={busy}
        onClick={() => void all("approve")}
      >
        Approve all
      </button>
      <button
        type="button"
        className="button button-small button-danger"
        disabled={busy}
        onClick={() => void all("deny")}
      >
        Deny all
      </button>
      {error ? (
        <span className="form-errors" role="alert">
          {error}
        </span>
      ) : null}
    </div>
  );
}
