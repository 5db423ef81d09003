import { useMemo, useState } from "react";
import type { CallToolResult, ContentBlock } from "../api/types.js";
import { formatBytes } from "../lib/format.js";
import { Icon } from "./icons.js";
import { JsonTree } from "./json-tree.js";
import { VirtualText } from "./virtual-text.js";

/** Text up to this size is drawn as is; beyond it, cut with "Show all" (then drawn by a virtual list). */
export const PREVIEW_CHARS = 4000;
/** JSON up to this size may be browsed as a tree; larger JSON is shown as text. */
const TREE_CHARS = 100_000;

/**
 * A tool's result as the person needs to see it: text (JSON as a tree), images, audio, embedded resources and links,
 * structured content; an error in red, told apart from an answer. Shared by the chat, the approvals and the Tools page.
 */
export function ResultViewer({ result, toolName }: { result: CallToolResult; toolName: string }) {
  const blocks = Array.isArray(result.content) ? result.content : [];
  const body = (
    <>
      {blocks.map((block, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: content blocks have no identity but their position
        <ContentView key={index} block={block} toolName={toolName} />
      ))}
      {result.structuredContent ? (
        <div className="result-structured">
          <div className="result-label">Structured content</div>
          <JsonTree value={result.structuredContent} label={`Structured content of ${toolName}`} />
        </div>
      ) : null}
      {blocks.length === 0 && !result.structuredContent ? <p className="muted">(empty result)</p> : null}
    </>
  );
  if (result.isError)
    return (
      <div className="result result-error">
        <div className="result-error-title">
          <Icon name="alert" /> Error
        </div>
        {body}
      </div>
    );
  return <div className="result">{body}</div>;
}

function ContentView({ block, toolName }: { block: ContentBlock; toolName: string }) {
  switch (block.type) {
    case "text":
      return <TextView text={String((block as { text?: unknown }).text ?? "")} toolName={toolName} />;
    case "image": {
      const { data, mimeType } = block as { data: string; mimeType: string };
      if (!/^image\/[\w.+-]+$/.test(mimeType)) return <p className="muted">(an image of type {mimeType})</p>;
      return (
        <img className="result-image" src={`data:${mimeType};base64,${data}`} alt={`Output of ${toolName}`} />
      );
    }
    case "audio": {
      const { data, mimeType } = block as { data: string; mimeType: string };
      if (!/^audio\/[\w.+-]+$/.test(mimeType)) return <p className="muted">(audio of type {mimeType})</p>;
      return (
        // biome-ignore lint/a11y/useMediaCaption: tool audio comes without captions; its text, if any, is another block
        <audio
          className="result-audio"
          controls
          src={`data:${mimeType};base64,${data}`}
          aria-label={`Audio from ${toolName}`}
        />
      );
    }
    case "resource": {
      const resource = (
        block as { resource: { uri: string; mimeType?: string; text?: string; blob?: string } }
      ).resource;
      return (
        <div className="result-resource">
          <div className="result-label">
            Resource <code>{resource.uri}</code>
            {resource.mimeType ? <span className="muted"> · {resource.mimeType}</span> : null}
          </div>
          {typeof resource.text === "string" ? <TextView text={resource.text} toolName={toolName} /> : null}
          {typeof resource.blob === "string" ? (
            <a
              className="button button-small"
              download={resource.uri.split("/").pop() || "resource"}
              href={`data:${resource.mimeType ?? "application/octet-stream"};base64,${resource.blob}`}
            >
              <Icon name="download" /> Download ({formatBytes(Math.floor((resource.blob.length * 3) / 4))})
            </a>
          ) : null}
        </div>
      );
    }
    case "resource_link": {
      const link = block as { uri: string; name?: string; title?: string; description?: string };
      const web = /^https?:\/\//i.test(link.uri);
      return (
        <div className="result-resource">
          <div className="result-label">Link</div>
          {web ? (
            <a href={link.uri} target="_blank" rel="noopener noreferrer">
              {link.title ?? link.name ?? link.uri}
            </a>
          ) : (
            <code>{link.uri}</code>
          )}
          {link.description ? <p className="muted">{link.description}</p> : null}
        </div>
      );
    }
    default:
      return (
        <div className="result-resource">
          <div className="result-label">{block.type}</div>
          <JsonTree value={block} label={`${block.type} content`} openDepth={1} />
        </div>
      );
  }
}

/** Text, JSON as a tree when it parses (and is not huge), cut past PREVIEW_CHARS with "Show all". */
export function TextView({ text, toolName }: { text: string; toolName: string }) {
  const [all, setAll] = useState(false);
  const [asText, setAsText] = useState(false);
  const json = useMemo(() => {
    if (text.length > TREE_CHARS) return undefined;
    const trimmed = text.trim();
    if (!/^[[{]/.test(trimmed)) return undefined;
    try {
      return { value: JSON.parse(trimmed) as unknown };
    } catch {
      return undefined;
    }
  }, [text]);
  const copy = () => void navigator.clipboard?.writeText(text).catch(() => {});
  const toolbar = (
    <div className="result-toolbar">
      {json ? (
        <button type="button" className="link-button" onClick={() => setAsText((v) => !v)}>
          {asText ? "Show as tree" : "Show as text"}
        </button>
      ) : null}
      <button type="button" className="link-button" onClick={copy}>
        <Icon name="copy" /> Copy
      </button>
    </div>
  );
  if (json && !asText)
    return (
      <div className="result-text">
        {toolbar}
        <JsonTree value={json.value} label={`Result of ${toolName}`} />
      </div>
    );
  if (text.length <= PREVIEW_CHARS)
    return (
      <div className="result-text">
        {text.length > 200 ? toolbar : null}
        <pre className="result-pre">{text}</pre>
      </div>
    );
  return (
    <div className="result-text">
      {toolbar}
      {all ? (
        <VirtualText text={text} label={`Full result of ${toolName}`} />
      ) : (
        <>
          <pre className="result-pre">{text.slice(0, PREVIEW_CHARS)}…</pre>
          <button type="button" className="button button-small" onClick={() => setAll(true)}>
            Show all ({formatBytes(text.length)})
          </button>
        </>
      )}
    </div>
  );
}
