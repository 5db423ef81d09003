import { api } from "../api/http.js";
import type { PendingApproval } from "../api/types.js";
import { socket } from "./connection.js";
import { Store } from "./external-store.js";

export interface PendingState {
  calls: PendingApproval[];
  loaded: boolean;
}

/** Every pending call of every run on the server's database, as the server last pushed it. */
export const pendingStore = new Store<PendingState>({ calls: [], loaded: false });

socket.onPush((push) => {
  if (push.type === "approvals/pending") pendingStore.set({ calls: push.calls, loaded: true });
});

/** Read the list now (after a decision made here, so the page does not wait for the next push). */
export async function refreshPending(): Promise<void> {
  try {
    const { data } = await api<{ data: PendingApproval[] }>("/api/approvals");
    pendingStore.set({ calls: data, loaded: true });
  } catch {
    // The push will bring it.
  }
}
