import { api, errorText } from "../api/http.js";
import type { ConversationSummary } from "../api/types.js";
import { socket } from "./connection.js";
import { Store } from "./external-store.js";

export interface ConversationsState {
  list: ConversationSummary[];
  loaded: boolean;
  error: string | undefined;
}

export const conversationsStore = new Store<ConversationsState>({
  list: [],
  loaded: false,
  error: undefined,
});

export async function loadConversations(): Promise<void> {
  try {
    const { data } = await api<{ data: ConversationSummary[] }>("/api/conversations");
    conversationsStore.set({ list: data, loaded: true, error: undefined });
  } catch (error) {
    conversationsStore.set((state) => ({ ...state, loaded: true, error: errorText(error) }));
  }
}

export async function renameConversation(conversationId: string, title: string): Promise<void> {
  await api(`/api/conversations/${encodeURIComponent(conversationId)}`, { method: "PATCH", body: { title } });
  await loadConversations();
}

export async function deleteConversation(conversationId: string): Promise<void> {
  await api(`/api/conversations/${encodeURIComponent(conversationId)}`, { method: "DELETE" });
  await loadConversations();
}

socket.onOpen((reconnected) => {
  if (reconnected) void loadConversations();
});
window.addEventListener("focus", () => void loadConversations());
