import { Dialog, Select } from "radix-ui";
import { type KeyboardEvent, useCallback, useEffect, useId, useLayoutEffect, useRef, useState } from "react";
import { ApiError, api, errorText } from "../api/http.js";
import type { Conversation } from "../api/types.js";
import { ConversationList, conversationTitle } from "../components/conversation-list.js";
import { Icon, Spinner } from "../components/icons.js";
import { RunTimeline } from "../components/run-timeline.js";
import { conversationTurns, type Turn } from "../lib/conversation-turns.js";
import { navigate } from "../lib/router.js";
import { loadConversations } from "../state/conversations.js";
import { useStore } from "../state/external-store.js";
import { loadModels, modelsStore } from "../state/models.js";
import { cancelRun, useRun } from "../state/runs.js";

interface Loaded {
  conversationId: string;
  title: string | null;
  turns: Turn[];
}

export function ChatPage({ conversationId }: { conversationId: string | undefined }) {
  const [loaded, setLoaded] = useState<Loaded | undefined>();
  const [loadError, setLoadError] = useState<string | undefined>();
  const [drawer, setDrawer] = useState(false);

  const load = useCallback(async (id: string) => {
    try {
      const conversation = await api<Conversation>(`/api/conversations/${encodeURIComponent(id)}`);
      setLoadError(undefined);
      setLoaded((previous) => {
        const turns = conversationTurns(conversation);
        // Turns this tab started that the listing does not have yet stay (the server has them; the read was early).
        const known = new Set(turns.map((turn) => turn.runId));
        const extra =
          previous?.conversationId === id ? previous.turns.filter((turn) => !known.has(turn.runId)) : [];
        return { conversationId: id, title: conversation.title, turns: [...turns, ...extra] };
      });
    } catch (error) {
      setLoadError(
        error instanceof ApiError && error.status === 404
          ? "There is no such conversation (it may have been deleted)."
          : errorText(error),
      );
    }
  }, []);

  useEffect(() => {
    setLoadError(undefined);
    if (!conversationId) {
      setLoaded(undefined);
      return;
    }
    setLoaded((previous) => (previous?.conversationId === conversationId ? previous : undefined));
    void load(conversationId);
    const refresh = () => void load(conversationId);
    window.addEventListener("focus", refresh);
    return () => window.removeEventListener("focus", refresh);
  }, [conversationId, load]);

  useEffect(() => {
    document.title = loaded ? `${conversationTitle(loaded)} · toolbridge` : "Chat · toolbridge";
  }, [loaded]);

  const started = (run: { runId: string; conversationId: string }, prompt: string) => {
    const turn: Turn = { runId: run.runId, prompt, messages: [] };
    setLoaded((previous) =>
      previous?.conversationId === run.conversationId
        ? { ...previous, turns: [...previous.turns, turn] }
        : { conversationId: run.conversationId, title: prompt.slice(0, 80), turns: [turn] },
    );
    if (run.conversationId !== conversationId) navigate(`/chat/${encodeURIComponent(run.conversationId)}`);
    void loadConversations();
  };

  const turns = loaded?.conversationId === conversationId ? (loaded?.turns ?? []) : [];
  const lastRunId = turns[turns.length - 1]?.runId;
  return (
    <div className="chat">
      <aside className="chat-sidebar">
        <ConversationList current={conversationId} />
      </aside>
      <section className="chat-main" aria-label="Chat">
        <div className="chat-toolbar">
          <Dialog.Root open={drawer} onOpenChange={setDrawer}>
            <Dialog.Trigger className="button button-small drawer-button">
              <Icon name="menu" /> Conversations
            </Dialog.Trigger>
            <Dialog.Portal>
              <Dialog.Overlay className="dialog-overlay" />
              <Dialog.Content className="dialog drawer">
                <Dialog.Title className="dialog-title">Conversations</Dialog.Title>
                <Dialog.Description className="visually-hidden">
                  Open, rename or delete a conversation.
                </Dialog.Description>
                <ConversationList current={conversationId} onNavigate={() => setDrawer(false)} />
              </Dialog.Content>
            </Dialog.Portal>
          </Dialog.Root>
          <h1 className="chat-title">{loaded && conversationId ? conversationTitle(loaded) : "New chat"}</h1>
        </div>
        {loadError ? (
          <p className="form-errors" role="alert">
            {loadError}
          </p>
        ) : null}
        <Transcript turns={turns} />
        <Composer conversationId={conversationId} lastRunId={lastRunId} onStarted={started} />
      </section>
    </div>
  );
}

/**
 * The turns, scrolled inside the chat's column (the composer stays in view). It follows the answer as it grows,
 * unless the person scrolled up to read.
 */
function Transcript({ turns }: { turns: Turn[] }) {
  const scroller = useRef<HTMLDivElement>(null);
  const content = useRef<HTMLDivElement>(null);
  const nearBottom = useRef(true);
  useLayoutEffect(() => {
    const box = scroller.current;
    const inner = content.current;
    if (!box || !inner || typeof ResizeObserver === "undefined") return;
    const onScroll = () => {
      nearBottom.current = box.scrollTop + box.clientHeight >= box.scrollHeight - 160;
    };
    box.addEventListener("scroll", onScroll, { passive: true });
    const observer = new ResizeObserver(() => {
      if (nearBottom.current) box.scrollTop = box.scrollHeight;
    });
    observer.observe(inner);
    return () => {
      box.removeEventListener("scroll", onScroll);
      observer.disconnect();
    };
  }, []);
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: the transcript scrolls on its own: keyboard users must reach it
    <div className="transcript-scroll" ref={scroller} tabIndex={0} role="region" aria-label="Transcript">
      {turns.length === 0 ? (
        <div className="empty-chat" ref={content}>
          <p>
            Ask something. Tool calls show up here as they happen, with their arguments, results and timings.
          </p>
        </div>
      ) : (
        <div className="transcript" ref={content}>
          {turns.map((turn) => (
            <article key={turn.runId} className="turn" aria-label={`Prompt: ${turn.prompt.slice(0, 60)}`}>
              <div className="user-message">{turn.prompt}</div>
              <RunTimeline runId={turn.runId} messages={turn.messages} />
            </article>
          ))}
        </div>
      )}
    </div>
  );
}

function Composer(props: {
  conversationId: string | undefined;
  lastRunId: string | undefined;
  onStarted: (run: { runId: string; conversationId: string }, prompt: string) => void;
}) {
  const [text, setText] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const models = useStore(modelsStore);
  const [model, setModel] = useState<string | undefined>();
  const messageId = useId();
  useEffect(() => {
    if (!models) void loadModels();
  }, [models]);
  const lastRun = useRun(props.lastRunId);
  const live = props.lastRunId !== undefined && (lastRun.status === "running" || lastRun.status === "paused");
  // The conversation list shows each one's last status.
  useEffect(() => {
    if (lastRun.status !== "unknown") void loadConversations();
  }, [lastRun.status]);

  const send = async () => {
    const message = text.trim();
    if (!message || busy || live) return;
    setBusy(true);
    setError(undefined);
    try {
      const run = await api<{ runId: string; conversationId: string }>("/api/runs", {
        body: {
          message,
          ...(props.conversationId ? { conversationId: props.conversationId } : {}),
          ...(model ? { model } : {}),
        },
      });
      setText("");
      props.onStarted(run, message);
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void send();
    }
  };
  const selected = model ?? models?.default;
  return (
    <form
      className="composer"
      onSubmit={(event) => {
        event.preventDefault();
        void send();
      }}
    >
      {error ? (
        <p className="form-errors" role="alert">
          {error}
        </p>
      ) : null}
      <label htmlFor={messageId} className="visually-hidden">
        Message
      </label>
      <textarea
        id={messageId}
        className="composer-input"
        placeholder={
          live
            ? "The run is still going: stop it, or wait for it to finish"
            : "Message (Enter sends, Shift+Enter for a new line)"
        }
        rows={2}
        value={text}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={onKeyDown}
      />
      <div className="composer-actions">
        {models && models.data.length > 0 ? (
          <Select.Root value={selected} onValueChange={setModel}>
            <Select.Trigger className="select-trigger" aria-label="Model">
              <Select.Value />
              <Icon name="chevron" className="select-chevron" />
            </Select.Trigger>
            <Select.Portal>
              <Select.Content className="select-content" position="popper" sideOffset={4}>
                <Select.Viewport>
                  {models.data.map((entry) => (
                    <Select.Item key={entry.name} value={entry.name} className="select-item">
                      <Select.ItemText>{entry.name}</Select.ItemText>
                      {entry.default ? <span className="muted small"> (default)</span> : null}
                    </Select.Item>
                  ))}
                </Select.Viewport>
              </Select.Content>
            </Select.Portal>
          </Select.Root>
        ) : (
          <span className="muted small">{models ? "No model is configured on this server." : ""}</span>
        )}
        <span className="spacer" />
        {live ? (
          <button
            type="button"
            className="button button-danger"
            onClick={() => {
              if (props.lastRunId)
                void cancelRun(props.lastRunId).catch((failure: unknown) => setError(errorText(failure)));
            }}
          >
            <Icon name="stop" /> Stop
          </button>
        ) : null}
        <button type="submit" className="button button-primary" disabled={busy || live || text.trim() === ""}>
          {busy ? <Spinner /> : <Icon name="send" />} Send
        </button>
      </div>
    </form>
  );
}
