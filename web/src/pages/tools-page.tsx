import { AlertDialog, Collapsible, Select, Switch } from "radix-ui";
import { lazy, Suspense, useEffect, useId, useMemo, useState } from "react";
import { api, errorText } from "../api/http.js";
import type { CallToolResult, JsonObject, Policy, ToolInfo } from "../api/types.js";
import { Icon, Spinner } from "../components/icons.js";
import { JsonTree } from "../components/json-tree.js";
import { ResultViewer } from "../components/result-viewer.js";
import { AnnotationBadges, sourceLabel } from "../components/tool-meta.js";
import { formatDuration } from "../lib/format.js";
import { queryParam, usePath } from "../lib/router.js";
import { useStore } from "../state/external-store.js";
import { loadTools, replaceTool, toolsStore } from "../state/tools.js";

const SchemaForm = lazy(() => import("../components/schema-form.js"));

const POLICY_WORDS: Record<Policy, string> = {
  always: "Always (run without asking)",
  ask: "Ask (a person decides each call)",
  never: "Never (refused)",
};

function policyOrigin(tool: ToolInfo): string {
  switch (tool.policySource) {
    case "setting":
      return `set here (a tool setting on this server; the configured policy is "${tool.configuredPolicy}")`;
    case "config":
      return "from the config file (mcp.approvals)";
    case "default":
      return tool.requiresApproval
        ? "the tool's default: it needs approval (destructive or open-world)"
        : "the tool's default";
    default:
      return tool.policy === tool.configuredPolicy ? "as configured" : "set here";
  }
}

export function ToolsPage() {
  const { tools, loaded, error } = useStore(toolsStore);
  const path = usePath();
  const [query, setQuery] = useState(() => queryParam(path, "q") ?? "");
  const searchId = useId();
  useEffect(() => {
    document.title = "Tools · toolbridge";
    void loadTools();
  }, []);
  const groups = useMemo(() => {
    const needle = query.trim().toLowerCase();
    const matching = needle
      ? tools.filter((tool) =>
          [tool.name, tool.title ?? "", tool.description ?? "", tool.category, sourceLabel(tool.source)]
            .join(" ")
            .toLowerCase()
            .includes(needle),
        )
      : tools;
    const bySource = new Map<string, Map<string, ToolInfo[]>>();
    for (const tool of matching) {
      const source = sourceLabel(tool.source);
      const categories = bySource.get(source) ?? new Map<string, ToolInfo[]>();
      categories.set(tool.category, [...(categories.get(tool.category) ?? []), tool]);
      bySource.set(source, categories);
    }
    const order = (label: string) => (label === "built-in" ? 0 : label === "tools module" ? 1 : 2);
    return [...bySource].sort(([a], [b]) => order(a) - order(b) || a.localeCompare(b));
  }, [tools, query]);
  return (
    <div className="page tools-page">
      <div className="page-head">
        <h1>Tools</h1>
        <p className="muted">
          Every tool this server offers — to its agents, over /mcp and /v1 — with its approval policy. Changes
          apply to the next call everywhere.
        </p>
        <label htmlFor={searchId} className="visually-hidden">
          Search tools
        </label>
        <div className="search">
          <Icon name="search" />
          <input
            id={searchId}
            type="search"
            className="input"
            placeholder="Search tools by name, description, category or source"
            value={query}
            onChange={(event) => setQuery(event.target.value)}
          />
        </div>
      </div>
      {error ? (
        <p className="form-errors" role="alert">
          {error}
        </p>
      ) : null}
      {!loaded ? <Spinner label="Loading tools" /> : null}
      {loaded && groups.length === 0 ? <p className="muted">No tool matches “{query}”.</p> : null}
      {groups.map(([source, categories]) => (
        <section key={source} className="tool-source-group" aria-label={`Tools: ${source}`}>
          <h2>{source}</h2>
          {[...categories].map(([category, list]) => (
            <div key={category} className="tool-category">
              <h3>{category}</h3>
              <ul className="tool-list">
                {list.map((tool) => (
                  <li key={tool.name}>
                    <ToolItem tool={tool} />
                  </li>
                ))}
              </ul>
            </div>
          ))}
        </section>
      ))}
    </div>
  );
}

function ToolItem({ tool }: { tool: ToolInfo }) {
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const change = async (patch: { enabled?: boolean | null; policy?: Policy | null }) => {
    setError(undefined);
    try {
      replaceTool(
        await api<ToolInfo>(`/api/tools/${encodeURIComponent(tool.name)}`, { method: "PATCH", body: patch }),
      );
    } catch (failure) {
      setError(errorText(failure));
    }
  };
  return (
    <article className={`tool-item${tool.enabled ? "" : " tool-off"}`} aria-label={tool.name}>
      <Collapsible.Root open={open} onOpenChange={setOpen}>
        <div className="tool-item-head">
          <Collapsible.Trigger className="tool-item-toggle" aria-label={`${tool.name} details`}>
            <Icon name="chevron" className="disclosure" />
          </Collapsible.Trigger>
          <div className="tool-item-title">
            <span className="tool-name">{tool.name}</span>
            {tool.title && tool.title !== tool.name ? <span className="muted"> {tool.title}</span> : null}
            <AnnotationBadges annotations={tool.annotations} />
            {tool.description ? <p className="tool-description">{tool.description}</p> : null}
          </div>
          <div className="tool-item-controls">
            <span className="switch-label">
              <Switch.Root
                className="switch"
                checked={tool.enabled}
                onCheckedChange={(checked) => void change({ enabled: checked })}
                aria-label={`${tool.name} enabled`}
              >
                <Switch.Thumb className="switch-thumb" />
              </Switch.Root>
              <span aria-hidden="true">{tool.enabled ? "On" : "Off"}</span>
            </span>
            <Select.Root
              value={tool.policy}
              onValueChange={(value) => void change({ policy: value as Policy })}
            >
              <Select.Trigger className="select-trigger" aria-label={`Approval policy of ${tool.name}`}>
                <Select.Value />
                <Icon name="chevron" className="select-chevron" />
              </Select.Trigger>
              <Select.Portal>
                <Select.Content className="select-content" position="popper" sideOffset={4}>
                  <Select.Viewport>
                    {(["always", "ask", "never"] as const).map((policy) => (
                      <Select.Item key={policy} value={policy} className="select-item">
                        <Select.ItemText>{policy}</Select.ItemText>
                        <span className="muted small">
                          {" "}
                          — {POLICY_WORDS[policy].split("(")[1]?.replace(")", "")}
                        </span>
                      </Select.Item>
                    ))}
                  </Select.Viewport>
                </Select.Content>
              </Select.Portal>
            </Select.Root>
          </div>
        </div>
        <p className="policy-origin small">
          Policy <strong>{tool.policy}</strong>: {policyOrigin(tool)}
          {tool.policySource === "setting" ? (
            <>
              {" "}
              <button type="button" className="link-button" onClick={() => void change({ policy: null })}>
                Reset to {tool.configuredPolicy}
              </button>
            </>
          ) : null}
        </p>
        {error ? (
          <p className="form-errors" role="alert">
            {error}
          </p>
        ) : null}
        <Collapsible.Content className="tool-item-body">
          <div className="result-label">Source</div>
          <p>
            {sourceLabel(tool.source)} · category {tool.category}
          </p>
          <details className="schema-details">
            <summary>Input schema</summary>
            <JsonTree value={tool.inputSchema} label={`Input schema of ${tool.name}`} openDepth={3} />
          </details>
          {open ? <ToolTester tool={tool} /> : null}
        </Collapsible.Content>
      </Collapsible.Root>
    </article>
  );
}

function ToolTester({ tool }: { tool: ToolInfo }) {
  const [result, setResult] = useState<{ value: CallToolResult; ms: number } | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState<JsonObject | undefined>();
  const call = async (args: JsonObject, confirm: boolean) => {
    setBusy(true);
    setError(undefined);
    const started = performance.now();
    try {
      const value = await api<CallToolResult>(`/api/tools/${encodeURIComponent(tool.name)}/call`, {
        body: { arguments: args, ...(confirm ? { confirm: true } : {}) },
      });
      setResult({ value, ms: performance.now() - started });
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  };
  if (!tool.enabled) return <p className="muted">Switched off: switch it on to try it.</p>;
  if (tool.policy === "never")
    return <p className="muted">Its policy is “never”: it cannot be called on this server.</p>;
  return (
    <div className="tool-tester">
      <h4>Try it</h4>
      <Suspense fallback={<Spinner label="Loading the form" />}>
        <SchemaForm
          schema={tool.inputSchema}
          initial={{}}
          submitLabel={`Call ${tool.name}`}
          label={`Test call of ${tool.name}`}
          busy={busy}
          onSubmit={(args) => {
            if (tool.policy === "ask") setConfirming(args);
            else void call(args, false);
          }}
        />
      </Suspense>
      <AlertDialog.Root
        open={confirming !== undefined}
        onOpenChange={(open) => !open && setConfirming(undefined)}
      >
        <AlertDialog.Portal>
          <AlertDialog.Overlay className="dialog-overlay" />
          <AlertDialog.Content className="dialog">
            <AlertDialog.Title className="dialog-title">Run {tool.name}?</AlertDialog.Title>
            <AlertDialog.Description>
              Its policy is “ask”: it runs only once you confirm. It will be called with:
            </AlertDialog.Description>
            <pre className="args-full">{JSON.stringify(confirming ?? {}, null, 2)}</pre>
            <div className="form-actions">
              <AlertDialog.Action asChild>
                <button
                  type="button"
                  className="button button-primary"
                  onClick={() => {
                    if (confirming) void call(confirming, true);
                    setConfirming(undefined);
                  }}
                >
                  Confirm and run
                </button>
              </AlertDialog.Action>
              <AlertDialog.Cancel asChild>
                <button type="button" className="button">
                  Cancel
                </button>
              </AlertDialog.Cancel>
            </div>
          </AlertDialog.Content>
        </AlertDialog.Portal>
      </AlertDialog.Root>
      {error ? (
        <p className="form-errors" role="alert">
          {error}
        </p>
      ) : null}
      {result ? (
        <section className="tool-test-result" aria-label={`Result of ${tool.name}`}>
          <div className="result-label">Result · {formatDuration(result.ms)}</div>
          <ResultViewer result={result.value} toolName={tool.name} />
        </section>
      ) : null}
    </div>
  );
}
