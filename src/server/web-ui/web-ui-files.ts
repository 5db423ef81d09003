import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

/** One file of the built web UI, held in memory with its gzipped form (the whole UI is a few hundred KB). */
export interface WebUiFile {
  body: Buffer;
  gzipped: Buffer | undefined;
  contentType: string;
  /** Content-hashed file names (Vite's `assets/`) never change: cached for a year. */
  immutable: boolean;
}

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".webmanifest": "application/manifest+json",
  ".txt": "text/plain; charset=utf-8",
  ".woff2": "font/woff2",
};

/**
 * Where `npm run build` puts the web UI: `dist/web` of this package. From the built server (`dist/server/web-ui/`)
 * that is `../../web`; from the sources run by tsx (`src/server/web-ui/`) it is `../../../dist/web`.
 */
export function findWebUiDir(): string | undefined {
  for (const relative of ["../../web/", "../../../dist/web/"]) {
    const dir = fileURLToPath(new URL(relative, import.meta.url));
    if (existsSync(path.join(dir, "index.html"))) return dir;
  }
  return undefined;
}

/** Read every file of the built UI once (paths as URL paths: `/index.html`, `/assets/index-3f2a.js`). */
export function loadWebUiFiles(dir: string): Map<string, WebUiFile> {
  const files = new Map<string, WebUiFile>();
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) {
        walk(full);
        continue;
      }
      if (!entry.isFile() || !statSync(full).isFile()) continue;
      const urlPath = `/${path.relative(dir, full).split(path.sep).join("/")}`;
      const extension = path.extname(entry.name).toLowerCase();
      const contentType = CONTENT_TYPES[extension];
      // Only what a browser needs; anything else left in the folder is not served.
      if (!contentType) continue;
      const body = readFileSync(full);
      const compressible = /^(text\/|application\/(json|manifest)|image\/svg)/.test(contentType);
      files.set(urlPath, {
        body,
        gzipped: compressible && body.length > 512 ? gzipSync(body, { level: 9 }) : undefined,
        contentType,
        immutable: urlPath.startsWith("/assets/"),
      });
    }
  };
  walk(dir);
  return files;
}
