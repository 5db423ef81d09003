import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), "../../fixtures/sse");

export interface RecordedRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}

export interface ReplayServer {
  /** e.g. http://127.0.0.1:41234 */
  origin: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/**
 * Replays recorded SSE streams (test/fixtures/sse/*.sse) over real HTTP on loopback, one fixture per request in
 * order, cut into small odd-sized writes so the real `openai` / `@anthropic-ai/sdk` clients parse them as they would
 * a network stream. The only mock in these tests: the edge of the paid APIs.
 */
export async function startSseReplayServer(
  fixtures: readonly string[],
  options: { chunkBytes?: number } = {},
): Promise<ReplayServer> {
  const queue = [...fixtures];
  const requests: RecordedRequest[] = [];
  const chunkBytes = options.chunkBytes ?? 23;
  const server: Server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => {
      raw += c;
    });
    req.on("end", async () => {
      requests.push({
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: raw ? JSON.parse(raw) : {},
      });
      const name = queue.shift();
      if (!name) {
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: "replay server: no fixture left for this request" } }));
        return;
      }
      const bytes = readFileSync(path.join(FIXTURES, name));
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      for (let at = 0; at < bytes.length; at += chunkBytes) {
        res.write(bytes.subarray(at, at + chunkBytes));
        await new Promise((resolve) => setImmediate(resolve));
      }
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
