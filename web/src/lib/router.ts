import { createElement, type MouseEvent, type ReactNode } from "react";
import { Store, useStore } from "../state/external-store.js";

const path = new Store<string>(window.location.pathname + window.location.search);
window.addEventListener("popstate", () => path.set(window.location.pathname + window.location.search));

/** Go to one of the UI's pages without reloading (the server answers any of them with the page, so links work too). */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (to === path.get()) return;
  if (options.replace) window.history.replaceState(null, "", to);
  else window.history.pushState(null, "", to);
  path.set(to);
  window.scrollTo(0, 0);
}

export function usePath(): string {
  return useStore(path);
}

export type Route =
  | { page: "chat"; conversationId: string | undefined }
  | { page: "tools" }
  | { page: "servers" }
  | { page: "runs"; runId: string | undefined }
  | { page: "not-found" };

export function routeOf(fullPath: string): Route {
  const pathname = fullPath.split("?")[0] ?? "/";
  const parts = pathname.split("/").filter(Boolean).map(decodeURIComponent);
  if (parts.length === 0) return { page: "chat", conversationId: undefined };
  if (parts[0] === "chat" && parts.length <= 2) return { page: "chat", conversationId: parts[1] };
  if (parts[0] === "tools" && parts.length === 1) return { page: "tools" };
  if (parts[0] === "servers" && parts.length === 1) return { page: "servers" };
  if (parts[0] === "runs" && parts.length <= 2) return { page: "runs", runId: parts[1] };
  return { page: "not-found" };
}

export function queryParam(fullPath: string, name: string): string | undefined {
  const query = fullPath.split("?")[1];
  return query ? (new URLSearchParams(query).get(name) ?? undefined) : undefined;
}

/** An ordinary link (opens in a new tab with a modifier key) that navigates in place on a plain click. */
export function Link(props: {
  to: string;
  children: ReactNode;
  className?: string;
  "aria-current"?: "page" | undefined;
}) {
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    if (
      event.defaultPrevented ||
      event.button !== 0 ||
      event.metaKey ||
      event.ctrlKey ||
      event.shiftKey ||
      event.altKey
    )
      return;
    event.preventDefault();
    navigate(props.to);
  };
  return createElement(
    "a",
    { href: props.to, onClick, className: props.className, "aria-current": props["aria-current"] },
    props.children,
  );
}
