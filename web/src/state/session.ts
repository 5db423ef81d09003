import { ApiError, api, onUnauthorized } from "../api/http.js";
import { socket } from "./connection.js";
import { Store } from "./external-store.js";

export type SessionState =
  | { phase: "checking" }
  | { phase: "signed-in"; tokenRequired: boolean }
  | { phase: "sign-in"; message?: string }
  | { phase: "unreachable"; message: string };

export const session = new Store<SessionState>({ phase: "checking" });

/** Ask the server whether this browser is signed in (the HttpOnly session cookie), then connect or ask for the token. */
export async function checkSession(): Promise<void> {
  try {
    const answer = await api<{ authenticated: boolean; tokenRequired: boolean }>("/api/session");
    if (answer.authenticated) {
      session.set({ phase: "signed-in", tokenRequired: answer.tokenRequired });
      socket.start();
    } else session.set({ phase: "sign-in" });
  } catch (error) {
    session.set({ phase: "unreachable", message: (error as Error).message });
    setTimeout(() => void checkSession(), 2000);
  }
}

/**
 * Exchange the token for the session cookie. The token lives only in this call: it is not kept in a variable,
 * storage or the URL afterwards.
 */
export async function signIn(token: string): Promise<void> {
  await api("/api/session", { method: "POST", body: { token } });
  await checkSession();
}

export async function signOut(): Promise<void> {
  // The page's own doing: no "the server asked" message on the sign-in page.
  session.set({ phase: "sign-in" });
  socket.stop("signed-out");
  await api("/api/session", { method: "DELETE" }).catch(() => {});
}

function sessionEnded(message: string): void {
  if (session.get().phase !== "signed-in") return;
  socket.stop("signed-out");
  session.set({ phase: "sign-in", message });
}

onUnauthorized(() =>
  sessionEnded("Your session ended (it expired, or the server's token changed). Sign in again."),
);
socket.status.subscribe(() => {
  if (socket.status.get() === "signed-out") sessionEnded("The server asked for a sign-in.");
});

export { ApiError };
