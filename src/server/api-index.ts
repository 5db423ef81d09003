import type { Hono } from "hono";

/** One route the server answers: its path as documented (`{id}` placeholders) and the methods it takes. */
export interface ApiRoute {
  path: string;
  methods: string[];
}

/** Surfaces the index lists; the web UI's pages and the guards' middleware are not API routes. */
const API_PATH = /^\/(api|v1|ws|mcp|healthz)(\/|$)/;

/**
 * The routes of `app` as registered — read from the router itself at request time, so the list cannot drift from what
 * is served (a route added anywhere shows up here). Middleware (`use`, paths ending in `*`) is left out; Hono's `:id`
 * is written `{id}` as in the docs; a catch-all handler (`/mcp`) reads `ALL`.
 */
export function listApiRoutes(app: Hono): ApiRoute[] {
  const byPath = new Map<string, Set<string>>();
  for (const route of app.routes) {
    if (route.path.endsWith("*") || !API_PATH.test(route.path)) continue;
    const path = route.path.replace(/:([A-Za-z_]\w*)(\{[^}]*\})?/g, "{$1}");
    let methods = byPath.get(path);
    if (!methods) byPath.set(path, (methods = new Set()));
    methods.add(route.method);
  }
  return [...byPath]
    .map(([path, methods]) => ({ path, methods: [...methods].sort() }))
    .sort((a, b) => a.path.localeCompare(b.path));
}
