import { gzipSync } from "node:zlib";
import react from "@vitejs/plugin-react";
import { defineConfig, type Plugin } from "vite";

/** Goal from the web UI issue: what a first visit downloads before the page can run. */
const INITIAL_JS_GOAL_KB = 150;

/**
 * Prints the initial JavaScript (the entry chunk and every chunk it imports statically: what the browser must fetch
 * before the first render) gzipped, against the goal. Lazy chunks (the schema form, pages loaded on demand) are left
 * out. Also written to `initial-js.json` in the output folder, for bench/webui.
 */
function initialJavaScriptReport(): Plugin {
  return {
    name: "toolbridge-initial-js",
    generateBundle(_options, bundle) {
      const chunks = Object.values(bundle).filter((item) => item.type === "chunk");
      const byName = new Map(chunks.map((chunk) => [chunk.fileName, chunk]));
      const initial = new Set<string>();
      const visit = (fileName: string) => {
        if (initial.has(fileName)) return;
        initial.add(fileName);
        for (const imported of byName.get(fileName)?.imports ?? []) visit(imported);
      };
      for (const chunk of chunks) if (chunk.isEntry) visit(chunk.fileName);
      let raw = 0;
      let gzipped = 0;
      for (const fileName of initial) {
        const code = byName.get(fileName)?.code ?? "";
        raw += Buffer.byteLength(code);
        gzipped += gzipSync(code, { level: 9 }).length;
      }
      const kb = (bytes: number) => Math.round((bytes / 1024) * 10) / 10;
      const lazy = chunks.filter((chunk) => !initial.has(chunk.fileName));
      this.emitFile({
        type: "asset",
        fileName: "initial-js.json",
        source: `${JSON.stringify({ files: [...initial], bytes: raw, gzipBytes: gzipped, goalKb: INITIAL_JS_GOAL_KB, lazyChunks: lazy.map((c) => c.fileName) }, null, 2)}\n`,
      });
      process.stdout.write(
        `web UI: initial JavaScript ${kb(gzipped)} KB gzipped (${kb(raw)} KB minified, ${initial.size} file(s); goal ≤ ${INITIAL_JS_GOAL_KB} KB)${gzipped > INITIAL_JS_GOAL_KB * 1024 ? "  OVER THE GOAL" : ""}; ${lazy.length} lazy chunk(s)\n`,
      );
    },
  };
}

export default defineConfig({
  root: import.meta.dirname,
  base: "/",
  plugins: [react(), initialJavaScriptReport()],
  build: {
    outDir: "../dist/web",
    emptyOutDir: true,
    // Served from this package only: no CDN, nothing fetched from outside at run time.
    assetsInlineLimit: 0,
    sourcemap: false,
    target: "es2022",
    reportCompressedSize: false,
  },
  server: {
    // `npm run dev:web` next to `toolbridge serve --allowed-origin http://localhost:5173`: the dev server forwards the
    // APIs to serve (TOOLBRIDGE_URL, default http://127.0.0.1:8080), so the page talks to one origin as in production.
    port: 5173,
    strictPort: true,
    proxy: Object.fromEntries(
      ["/api", "/v1", "/mcp", "/healthz", "/ws"].map((prefix) => [
        prefix,
        {
          target: process.env.TOOLBRIDGE_URL ?? "http://127.0.0.1:8080",
          changeOrigin: true,
          ws: prefix === "/ws",
        },
      ]),
    ),
  },
});
