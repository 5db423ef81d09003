import type { Context } from "hono";
import { findWebUiDir, loadWebUiFiles, type WebUiFile } from "./web-ui-files.js";

/** Paths that belong to the APIs: never answered with the web UI (an unknown one stays a JSON 404). */
const API_PREFIXES = ["/api", "/v1", "/mcp", "/ws", "/healthz"];

/** Whether a request is the web UI's to answer: a GET or HEAD outside the API paths. */
export function isWebUiRequest(method: string, pathname: string): boolean {
  if (method !== "GET" && method !== "HEAD") return false;
  return !API_PREFIXES.some((prefix) => pathname === prefix || pathname.startsWith(`${prefix}/`));
}

/** The UI's own pages (its router's paths): a reload or a shared link of one gets the page. */
const UI_PAGES = /^\/(?:(?:chat|runs)(?:\/[^/]*)?|tools|servers)?\/?$/;

/**
 * The page's Content-Security-Policy: scripts, styles, fonts and connections only from this server (so the UI works
 * offline and injected markup cannot load or send anything elsewhere); no inline script; images also as data:/blob:
 * URLs (tool results carry base64 images); no frames in either direction. MCP App views will get their own sandboxed
 * origin. `'unsafe-eval'`: the schema form validates with Ajv, which compiles each JSON Schema into a function (the
 * only way Ajv runs); it lets no script in that this server did not serve.
 */
export const WEB_UI_CSP = [
  "default-src 'self'",
  "script-src 'self' 'unsafe-eval'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "media-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-src 'none'",
  "frame-ancestors 'none'",
].join("; ");

const NO_FILES = new Map<string, WebUiFile>();
const loaded = new Map<string, Map<string, WebUiFile>>();

function loadedFiles(dir: string): Map<string, WebUiFile> {
  let files = loaded.get(dir);
  if (!files) loaded.set(dir, (files = loadWebUiFiles(dir)));
  return files;
}

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>toolbridge</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><main><h1>toolbridge</h1>
<p>The web UI is not built in this copy of toolbridge. Run <code>npm run build</code> in the repository, then restart
<code>toolbridge serve</code>. The APIs (<code>/api</code>, <code>/ws</code>, <code>/v1</code>, <code>/mcp</code>) work as usual.</p>
</main></body></html>
`;

/**
 * The web UI's handler for GET/HEAD outside the APIs: the built files of `dir` (default: this package's `dist/web`),
 * and `index.html` for any other path without a file extension (the UI's own routes: /tools, /runs/run_…), so a
 * reload or a shared link opens the right page. Files are read once, at start.
 */
export function createWebUiHandler(options: { dir?: string | undefined } = {}) {
  const dir = options.dir ?? findWebUiDir();
  // Read at the first request, once per folder for the process: servers that never serve a page never read it.
  const filesOf = () => (dir ? loadedFiles(dir) : NO_FILES);
  const handle = (c: Context): Response => {
    const files = filesOf();
    const index = files.get("/index.html");
    const pathname = c.req.path;
    const hasExtension = /\.[A-Za-z0-9]+$/.test(pathname.slice(pathname.lastIndexOf("/")));
    const file = files.get(pathname) ?? (hasExtension ? undefined : index);
    if (!file) {
      if (!hasExtension)
        return new Response(NOT_BUILT_PAGE, {
          status: 200,
          headers: pageHeaders("text/html; charset=utf-8"),
        });
      return new Response("Not Found", {
        status: 404,
        headers: { "content-type": "text/plain; charset=utf-8" },
      });
    }
    const headers = file.contentType.startsWith("text/html")
      ? pageHeaders(file.contentType)
      : {
          "content-type": file.contentType,
          "x-content-type-options": "nosniff",
          "cache-control": file.immutable ? "public, max-age=31536000, immutable" : "no-cache",
        };
    const acceptsGzip = /\bgzip\b/.test(c.req.header("accept-encoding") ?? "");
    const body = acceptsGzip && file.gzipped ? file.gzipped : file.body;
    const encoded: Record<string, string> =
      body === file.gzipped ? { "content-encoding": "gzip", vary: "accept-encoding" } : {};
    return new Response(c.req.method === "HEAD" ? null : new Uint8Array(body), {
      status: 200,
      headers: { ...headers, ...encoded, "content-length": String(body.length) },
    });
  };
  /**
   * What loads without credentials: the page, its files and its own routes. They hold no secret and must load before
   * a person signs in (the APIs they call still need the token); any other path — a route added later outside the
   * API prefixes included — keeps the token check. The Host/Origin guard runs before this in every case.
   */
  const isPublic = (method: string, pathname: string): boolean =>
    isWebUiRequest(method, pathname) && (UI_PAGES.test(pathname) || filesOf().has(pathname));
  return { handle, isPublic };
}

function pageHeaders(contentType: string): Record<string, string> {
  return {
    "content-type": contentType,
    "content-security-policy": WEB_UI_CSP,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    // The page is small and must follow the server's version: always revalidated.
    "cache-control": "no-cache",
  };
}
