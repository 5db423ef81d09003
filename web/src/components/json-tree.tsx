import { useState } from "react";

const PAGE = 100;

/** Keys and values of a JSON value as nested disclosure widgets (native <details>: keyboard and screen readers work). */
export function JsonTree({
  value,
  label,
  openDepth = 2,
}: {
  value: unknown;
  label?: string;
  openDepth?: number;
}) {
  return (
    <div className="json-tree" role="group" aria-label={label ?? "JSON"}>
      <JsonNode value={value} depth={0} openDepth={openDepth} />
    </div>
  );
}

function JsonNode({
  name,
  value,
  depth,
  openDepth,
}: {
  name?: string;
  value: unknown;
  depth: number;
  openDepth: number;
}) {
  const [shown, setShown] = useState(PAGE);
  const key = name === undefined ? null : <span className="json-key">{name}: </span>;
  if (value === null || typeof value !== "object") {
    return (
      <div className="json-leaf">
        {key}
        <JsonScalar value={value} />
      </div>
    );
  }
  const entries = Array.isArray(value)
    ? value.map((item, index) => [String(index), item] as const)
    : Object.entries(value as Record<string, unknown>);
  const summary = Array.isArray(value) ? `[${entries.length}]` : `{${entries.length}}`;
  if (entries.length === 0) {
    return (
      <div className="json-leaf">
        {key}
        <span className="json-punct">{Array.isArray(value) ? "[]" : "{}"}</span>
      </div>
    );
  }
  return (
    <details className="json-node" open={depth < openDepth}>
      <summary>
        {key}
        <span className="json-punct">{summary}</span>
      </summary>
      <div className="json-children">
        {entries.slice(0, shown).map(([childName, child]) => (
          <JsonNode key={childName} name={childName} value={child} depth={depth + 1} openDepth={openDepth} />
        ))}
        {entries.length > shown ? (
          <button type="button" className="link-button" onClick={() => setShown((n) => n + PAGE * 10)}>
            Show {Math.min(PAGE * 10, entries.length - shown)} more of {entries.length - shown}
          </button>
        ) : null}
      </div>
    </details>
  );
}

function JsonScalar({ value }: { value: unknown }) {
  if (typeof value === "string") return <span className="json-string">{JSON.stringify(value)}</span>;
  if (typeof value === "number") return <span className="json-number">{String(value)}</span>;
  if (typeof value === "boolean") return <span className="json-boolean">{String(value)}</span>;
  return <span className="json-null">null</span>;
}
