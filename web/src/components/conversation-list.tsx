import { AlertDialog, Dialog, DropdownMenu } from "radix-ui";
import { useEffect, useId, useState } from "react";
import { errorText } from "../api/http.js";
import type { ConversationSummary } from "../api/types.js";
import { formatAgo } from "../lib/format.js";
import { Link, navigate } from "../lib/router.js";
import {
  conversationsStore,
  deleteConversation,
  loadConversations,
  renameConversation,
} from "../state/conversations.js";
import { useStore } from "../state/external-store.js";
import { Icon } from "./icons.js";

export function conversationTitle(
  conversation: Pick<ConversationSummary, "title" | "conversationId">,
): string {
  return conversation.title?.trim() || `Conversation ${conversation.conversationId.slice(5, 13)}`;
}

/** The conversations of this server (most recent first): open, rename, delete; a new chat. */
export function ConversationList({
  current,
  onNavigate,
}: {
  current: string | undefined;
  onNavigate?: () => void;
}) {
  const { list, loaded, error } = useStore(conversationsStore);
  useEffect(() => {
    void loadConversations();
    const timer = setInterval(() => void loadConversations(), 15_000);
    return () => clearInterval(timer);
  }, []);
  return (
    <nav className="conversations" aria-label="Conversations">
      <button
        type="button"
        className="button button-primary new-chat"
        onClick={() => {
          navigate("/");
          onNavigate?.();
        }}
      >
        <Icon name="plus" /> New chat
      </button>
      {error ? <p className="form-errors">{error}</p> : null}
      {loaded && list.length === 0 ? <p className="muted">No conversations yet.</p> : null}
      <ul>
        {list.map((conversation) => (
          <li
            key={conversation.conversationId}
            className={conversation.conversationId === current ? "current" : undefined}
          >
            <span onClickCapture={() => onNavigate?.()}>
              <Link
                to={`/chat/${encodeURIComponent(conversation.conversationId)}`}
                aria-current={conversation.conversationId === current ? "page" : undefined}
                className="conversation-link"
              >
                <span className="conversation-title">{conversationTitle(conversation)}</span>
                <span className="muted small">
                  {formatAgo(conversation.updatedAt)}
                  {conversation.lastStatus === "paused" ? " · waiting for approval" : ""}
                  {conversation.lastStatus === "running" ? " · running" : ""}
                </span>
              </Link>
            </span>
            <ConversationActions conversation={conversation} current={current} />
          </li>
        ))}
      </ul>
    </nav>
  );
}

function ConversationActions({
  conversation,
  current,
}: {
  conversation: ConversationSummary;
  current: string | undefined;
}) {
  const [renaming, setRenaming] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const title = conversationTitle(conversation);
  return (
    <>
      <DropdownMenu.Root>
        <DropdownMenu.Trigger className="icon-button" aria-label={`Actions for ${title}`}>
          <Icon name="dots" />
        </DropdownMenu.Trigger>
        <DropdownMenu.Portal>
          <DropdownMenu.Content className="menu" align="end" sideOffset={4}>
            <DropdownMenu.Item className="menu-item" onSelect={() => setRenaming(true)}>
              <Icon name="pencil" /> Rename
            </DropdownMenu.Item>
            <DropdownMenu.Item className="menu-item menu-item-danger" onSelect={() => setDeleting(true)}>
              <Icon name="trash" /> Delete
            </DropdownMenu.Item>
          </DropdownMenu.Content>
        </DropdownMenu.Portal>
      </DropdownMenu.Root>
      <RenameDialog open={renaming} onOpenChange={setRenaming} conversation={conversation} />
      <DeleteDialog
        open={deleting}
        onOpenChange={setDeleting}
        conversation={conversation}
        onDeleted={() => {
          if (current === conversation.conversationId) navigate("/");
        }}
      />
    </>
  );
}

function RenameDialog(props: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  conversation: ConversationSummary;
}) {
  const [title, setTitle] = useState(conversationTitle(props.conversation));
  const [error, setError] = useState<string | undefined>();
  const id = useId();
  useEffect(() => {
    if (props.open) setTitle(conversationTitle(props.conversation));
  }, [props.open, props.conversation]);
  return (
    <Dialog.Root open={props.open} onOpenChange={props.onOpenChange}>
      <Dialog.Portal>
        <Dialog.Overlay className="dialog-overlay" />
        <Dialog.Content className="dialog">
          <Dialog.Title className="dialog-title">Rename conversation</Dialog.Title>
          <Dialog.Description className="visually-hidden">
            Give this conversation a new title.
          </Dialog.Description>
          <form
            onSubmit={(event) => {
              event.preventDefault();
              renameConversation(props.conversation.conversationId, title)
                .then(() => props.onOpenChange(false))
                .catch((failure: unknown) => setError(errorText(failure)));
            }}
          >
            <label htmlFor={id} className="field-label">
              Title
            </label>
            <input
              id={id}
              className="input"
              value={title}
              maxLength={200}
              onChange={(e) => setTitle(e.target.value)}
            />
            {error ? (
              <p className="form-errors" role="alert">
                {error}
              </p>
            ) : null}
            <div className="form-actions">
              <button type="submit" className="button button-primary">
                Save
              </button>
              <Dialog.Close asChild>
                <button type="button" className="button">
                  Cancel
                </button>
              </Dialog.Close>
            </div>
          </form>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

function DeleteDialog(props: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  conversation: ConversationSummary;
  onDeleted: () => void;
}) {
  const [error, setError] = useState<string | undefined>();
  return (
    <AlertDialog.Root
      open={props.open}
      onOpenChange={(open) => {
        props.onOpenChange(open);
        setError(undefined);
      }}
    >
      <AlertDialog.Portal>
        <AlertDialog.Overlay className="dialog-overlay" />
        <AlertDialog.Content className="dialog">
          <AlertDialog.Title className="dialog-title">
            Delete “{conversationTitle(props.conversation)}”?
          </AlertDialog.Title>
          <AlertDialog.Description>
            Its messages, runs and their events are deleted from the server's database. The audit log keeps
            what tools did.
          </AlertDialog.Description>
          {error ? (
            <p className="form-errors" role="alert">
              {error}
            </p>
          ) : null}
          <div className="form-actions">
            <button
              type="button"
              className="button button-danger"
              onClick={() => {
                deleteConversation(props.conversation.conversationId)
                  .then(() => {
                    props.onOpenChange(false);
                    props.onDeleted();
                  })
                  .catch((failure: unknown) => setError(errorText(failure)));
              }}
            >
              Delete
            </button>
            <AlertDialog.Cancel asChild>
              <button type="button" className="button">
                Cancel
              </button>
            </AlertDialog.Cancel>
          </div>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  );
}
