import type { ReactNode } from "react";
import { Link, type Route } from "../lib/router.js";
import { socket } from "../state/connection.js";
import { useStore } from "../state/external-store.js";
import { session, signOut } from "../state/session.js";
import { Spinner } from "./icons.js";
import { PendingTray } from "./pending-tray.js";

const PAGES: Array<{ to: string; label: string; page: Route["page"] }> = [
  { to: "/", label: "Chat", page: "chat" },
  { to: "/tools", label: "Tools", page: "tools" },
  { to: "/servers", label: "MCP servers", page: "servers" },
  { to: "/runs", label: "Runs", page: "runs" },
];

export function Layout({ route, children }: { route: Route; children: ReactNode }) {
  const status = useStore(socket.status);
  const state = useStore(session);
  return (
    // The chat fills the window and scrolls inside; the other pages scroll the window.
    <div className={route.page === "chat" ? "app app-fixed" : "app"}>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="app-header">
        <Link to="/" className="brand">
          <img src="/favicon.svg" alt="" width="22" height="22" /> toolbridge
        </Link>
        <nav className="app-nav" aria-label="Pages">
          {PAGES.map((page) => (
            <Link key={page.to} to={page.to} aria-current={route.page === page.page ? "page" : undefined}>
              {page.label}
            </Link>
          ))}
        </nav>
        <span className="spacer" />
        <PendingTray />
        {state.phase === "signed-in" && state.tokenRequired ? (
          <button type="button" className="button button-small" onClick={() => void signOut()}>
            Sign out
          </button>
        ) : null}
      </header>
      {status === "reconnecting" ? (
        <div className="banner" role="status">
          <Spinner /> The connection to the server was lost; reconnecting… (what happened meanwhile will
          follow)
        </div>
      ) : null}
      <main id="main" className="app-main" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}
