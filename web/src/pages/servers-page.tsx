import { useCallback, useEffect, useState } from "react";
import { api, errorText } from "../api/http.js";
import type { McpServerStatus } from "../api/types.js";
import { Icon, Spinner } from "../components/icons.js";
import { Link } from "../lib/router.js";
import { socket } from "../state/connection.js";

const STATE_TONE: Record<string, string> = {
  ready: "ok",
  connecting: "warn",
  restarting: "warn",
  error: "danger",
  stopped: "neutral",
};

/** How often the page reads the servers' states: often while one is on its way somewhere, else now and then. */
const BUSY_POLL_MS = 400;
const IDLE_POLL_MS = 1500;

export function ServersPage() {
  const [servers, setServers] = useState<McpServerStatus[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  const refresh = useCallback(async () => {
    try {
      setServers((await api<{ servers: McpServerStatus[] }>("/api/mcp-servers")).servers);
      setError(undefined);
    } catch (failure) {
      setError(errorText(failure));
    }
  }, []);
  const busy = servers?.some((server) => server.state !== "ready" && server.state !== "stopped") ?? true;
  useEffect(() => {
    document.title = "MCP servers · toolbridge";
  }, []);
  useEffect(() => {
    void refresh();
    const timer = setInterval(() => void refresh(), busy ? BUSY_POLL_MS : IDLE_POLL_MS);
    // A server that stops or comes back changes the tool list: read its state then, not at the next tick.
    const stop = socket.onPush((push) => {
      if (push.type === "tools/list_changed") void refresh();
    });
    return () => {
      clearInterval(timer);
      stop();
    };
  }, [refresh, busy]);
  return (
    <div className="page servers-page">
      <div className="page-head">
        <h1>MCP servers</h1>
        <p className="muted">
          The MCP servers this server mounts (config <code>mcpServers</code>): their tools appear on the Tools
          page as
          <code> server.tool</code>.
        </p>
      </div>
      {error ? (
        <p className="form-errors" role="alert">
          {error}
        </p>
      ) : null}
      {servers === undefined && !error ? <Spinner label="Loading MCP servers" /> : null}
      {servers?.length === 0 ? (
        <p className="muted">
          No MCP server is mounted. Add one under “mcpServers” in toolbridge.config.json and restart serve.
        </p>
      ) : null}
      <ul className="server-list">
        {servers?.map((server) => (
          <li key={server.name}>
            <ServerCard server={server} onChanged={refresh} />
          </li>
        ))}
      </ul>
    </div>
  );
}

function ServerCard({ server, onChanged }: { server: McpServerStatus; onChanged: () => Promise<void> }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const tone = STATE_TONE[server.state] ?? "neutral";
  const restart = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await api(`/api/mcp-servers/${encodeURIComponent(server.name)}/restart`, { method: "POST" });
      await onChanged();
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <article className="server-card" aria-label={server.name}>
      <header className="server-head">
        <h2>{server.name}</h2>
        <span className={`badge badge-${tone}`} role="status">
          {server.state === "connecting" || server.state === "restarting" ? <Spinner /> : null}
          {server.state}
        </span>
        <span className="spacer" />
        <button type="button" className="button button-small" disabled={busy} onClick={() => void restart()}>
          <Icon name="refresh" /> Restart
        </button>
      </header>
      <dl className="facts">
        <div>
          <dt>Transport</dt>
          <dd>{server.transport}</dd>
        </div>
        <div>
          <dt>Tools</dt>
          <dd>{server.toolCount}</dd>
        </div>
        {server.pid ? (
          <div>
            <dt>Process</dt>
            <dd>{server.pid}</dd>
          </div>
        ) : null}
        {server.era ? (
          <div>
            <dt>Protocol</dt>
            <dd>{server.era}</dd>
          </div>
        ) : null}
        <div>
          <dt>Restarts</dt>
          <dd>{server.restarts}</dd>
        </div>
      </dl>
      {error ? (
        <p className="form-errors" role="alert">
          {error}
        </p>
      ) : null}
      {server.lastError ? (
        <div className="result result-error">
          <div className="result-error-title">
            <Icon name="alert" /> Last error
          </div>
          <p>{server.lastError}</p>
        </div>
      ) : null}
      {server.stderrTail.length > 0 ? (
        <details className="stderr">
          <summary>Standard error (last {server.stderrTail.length} lines)</summary>
          <pre>{server.stderrTail.join("\n")}</pre>
        </details>
      ) : null}
      {server.tools.length > 0 ? (
        <details className="stderr">
          <summary>Its {server.tools.length} tools</summary>
          <p className="small">
            {server.tools.join(", ")} ·{" "}
            <Link to={`/tools?q=${encodeURIComponent(`${server.name}.`)}`}>on the Tools page</Link>
          </p>
        </details>
      ) : null}
    </article>
  );
}
