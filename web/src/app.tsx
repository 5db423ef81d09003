import { lazy, Suspense, useEffect } from "react";
import { Spinner } from "./components/icons.js";
import { Layout } from "./components/layout.js";
import { routeOf, usePath } from "./lib/router.js";
import { ChatPage } from "./pages/chat-page.js";
import { SignInPage } from "./pages/sign-in-page.js";
import { useStore } from "./state/external-store.js";
import { refreshPending } from "./state/pending.js";
import { checkSession, session } from "./state/session.js";

// The chat is what a first visit opens; the other pages load when visited.
const ToolsPage = lazy(() => import("./pages/tools-page.js").then((m) => ({ default: m.ToolsPage })));
const ServersPage = lazy(() => import("./pages/servers-page.js").then((m) => ({ default: m.ServersPage })));
const RunsPage = lazy(() => import("./pages/runs-page.js").then((m) => ({ default: m.RunsPage })));

export function App() {
  const state = useStore(session);
  const path = usePath();
  useEffect(() => {
    void checkSession();
  }, []);
  useEffect(() => {
    if (state.phase === "signed-in") void refreshPending();
  }, [state.phase]);
  if (state.phase === "checking")
    return (
      <main className="center" id="main">
        <Spinner label="Connecting to the server" />
      </main>
    );
  if (state.phase === "unreachable")
    return (
      <main className="center" id="main">
        <p role="status">
          <Spinner /> The server cannot be reached ({state.message}). Retrying…
        </p>
      </main>
    );
  if (state.phase === "sign-in") return <SignInPage message={state.message} />;
  const route = routeOf(path);
  return (
    <Layout route={route}>
      {route.page === "chat" ? <ChatPage conversationId={route.conversationId} /> : null}
      <Suspense fallback={<Spinner label="Loading the page" />}>
        {route.page === "tools" ? <ToolsPage /> : null}
        {route.page === "servers" ? <ServersPage /> : null}
        {route.page === "runs" ? <RunsPage runId={route.runId} /> : null}
      </Suspense>
      {route.page === "not-found" ? (
        <div className="page">
          <h1>Not found</h1>
          <p>There is no page at {path}.</p>
        </div>
      ) : null}
    </Layout>
  );
}
