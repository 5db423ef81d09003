import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { SignInFailureLimiter } from "../../src/server/security/sign-in-failure-limiter.js";
import { startServe } from "../helpers/serve-process.js";
import { GATED_TURNS, openServer, tempDbFile } from "./runs/helpers.js";

// Guessing the server's token, as an attacker would: many wrong tokens fast from one address. Linux routes all of
// 127.0.0.0/8 to loopback, so a client bound to 127.0.0.2 or .3 is another address of a real TCP connection.
const TOKEN = "the-right-token-0123456789";
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One HTTP request from a chosen local address. */
function send(
  url: string,
  from: string,
  options: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<Reply> {
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: options.method ?? "GET",
        localAddress: from,
        headers: {
          ...(body === undefined ? {} : { "content-type": "application/json" }),
          ...options.headers,
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

interface WsLike {
  on(event: string, listener: (...args: never[]) => void): void;
  send(data: string): void;
  close(): void;
}
const WebSocket = (
  createRequire(import.meta.url)("ws") as {
    WebSocket: new (url: string, options: { localAddress: string }) => WsLike;
  }
).WebSocket;

/** Open /ws from `from`, send {type:"auth"} with `token`; resolves with the upgrade status or the auth reply. */
function wsAuth(url: string, from: string, token: string): Promise<{ upgrade: number } | { reply: unknown }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { localAddress: from });
    socket.on("unexpected-response", (_req: never, res: { statusCode: number }) =>
      resolve({ upgrade: res.statusCode }),
    );
    socket.on("error", (error: Error) => reject(error));
    socket.on("open", () => socket.send(JSON.stringify({ id: 1, type: "auth", token })));
    socket.on("message", (data: Buffer) => {
      resolve({ reply: JSON.parse(data.toString("utf8")) });
      socket.close();
    });
  });
}

async function server(limiter: SignInFailureLimiter, extra: { secureCookie?: boolean } = {}) {
  const db = await tempDbFile();
  cleanups.push(db.remove);
  const opened = await openServer(db.file, GATED_TURNS, { token: TOKEN, signInLimit: { limiter }, ...extra });
  cleanups.push(() => opened.close());
  return opened.url;
}

function clock() {
  let now = 1_700_000_000_000;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

const ATTACKER = "127.0.0.1";
const OTHER = "127.0.0.2";

describe("sign-in failure limit", () => {
  it("refuses an address after N wrong tokens with 429 + Retry-After on every surface; others and later tries work", async () => {
    const time = clock();
    const url = await server(new SignInFailureLimiter({ maxFailures: 5, windowMs: 60_000, now: time.now }));

    // Five wrong guesses, fired at once.
    const guesses = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        send(`${url}/api/session`, ATTACKER, { method: "POST", body: { token: `guess-${i}` } }),
      ),
    );
    expect(guesses.map((reply) => reply.status)).toEqual([401, 401, 401, 401, 401]);

    // Now even the right token is not looked at from that address.
    const session = await send(`${url}/api/session`, ATTACKER, { method: "POST", body: { token: TOKEN } });
    expect(session.status).toBe(429);
    expect(session.headers["retry-after"]).toBe("60");
    expect(session.headers["set-cookie"]).toBeUndefined();
    expect(JSON.parse(session.body)).toEqual({
      error: {
        message: expect.stringMatching(/too many wrong tokens/),
        type: "rate_limit_error",
        param: null,
        code: "too_many_sign_in_failures",
      },
    });
    const bearer = { authorization: `Bearer ${TOKEN}` };
    expect((await send(`${url}/api/runs`, ATTACKER, { headers: bearer })).status).toBe(429);
    const mcp = await send(`${url}/mcp`, ATTACKER, {
      method: "POST",
      headers: { ...bearer, accept: "application/json, text/event-stream" },
      body: { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} },
    });
    expect(mcp.status).toBe(429);
    expect(mcp.headers["retry-after"]).toBe("60");
    expect(JSON.parse(mcp.body)).toMatchObject({ jsonrpc: "2.0", error: { code: -32029 }, id: null });
    const openai = new OpenAI({ baseURL: `${url}/v1`, apiKey: TOKEN, maxRetries: 0 });
    await expect(openai.models.list()).rejects.toMatchObject({ status: 429, type: "rate_limit_error" });
    expect(await wsAuth(`${url.replace("http", "ws")}/ws`, ATTACKER, TOKEN)).toEqual({ upgrade: 429 });

    // Another address signs in with the right token at the same time.
    const other = await send(`${url}/api/session`, OTHER, { method: "POST", body: { token: TOKEN } });
    expect(other.status).toBe(200);
    expect(String(other.headers["set-cookie"])).toMatch(/^toolbridge_session=v1\./);
    expect((await send(`${url}/api/runs`, OTHER, { headers: bearer })).status).toBe(200);

    // When the window is over, the attacker's address may try again (and the right token works).
    time.advance(59_000);
    expect((await send(`${url}/api/runs`, ATTACKER, { headers: bearer })).headers["retry-after"]).toBe("1");
    time.advance(1_000);
    expect((await send(`${url}/api/runs`, ATTACKER, { headers: bearer })).status).toBe(200);
  });

  it("lets no more than N guesses through when they are all sent at once", async () => {
    const url = await server(new SignInFailureLimiter({ maxFailures: 5, windowMs: 60_000 }));
    const replies = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        i % 2 === 0
          ? send(`${url}/api/session`, ATTACKER, { method: "POST", body: { token: `guess-${i}` } })
          : send(`${url}/api/tools`, ATTACKER, { headers: { authorization: `Bearer guess-${i}` } }),
      ),
    );
    const statuses = replies.map((reply) => reply.status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(45);
  });

  it("counts wrong Bearer headers, GET /api/session probes and WebSocket auth messages too; successes never", async () => {
    const time = clock();
    const url = await server(new SignInFailureLimiter({ maxFailures: 3, windowMs: 60_000, now: time.now }));
    const ws = `${url.replace("http", "ws")}/ws`;
    const bearer = { authorization: `Bearer ${TOKEN}` };

    // Many successes count for nothing.
    for (let i = 0; i < 10; i++)
      expect((await send(`${url}/api/runs`, OTHER, { headers: bearer })).status).toBe(200);
    expect(await wsAuth(ws, OTHER, TOKEN)).toMatchObject({ reply: { type: "result" } });

    expect(
      (await send(`${url}/v1/models`, OTHER, { headers: { authorization: "Bearer nope" } })).status,
    ).toBe(401);
    const probe = await send(`${url}/api/session`, OTHER, { headers: { authorization: "Bearer nope" } });
    expect(JSON.parse(probe.body)).toMatchObject({ authenticated: false });
    expect(await wsAuth(ws, OTHER, "nope")).toMatchObject({
      reply: { status: 401, error: { code: "unauthorized" } },
    });
    // Three failures: the next socket is refused at the upgrade, the next request by status.
    expect(await wsAuth(ws, OTHER, TOKEN)).toEqual({ upgrade: 429 });
    expect((await send(`${url}/api/runs`, OTHER, { headers: bearer })).status).toBe(429);
    // /healthz stays open (load balancers probe it).
    expect((await send(`${url}/healthz`, OTHER)).status).toBe(200);
    // A third address was never involved.
    expect((await send(`${url}/api/runs`, "127.0.0.3", { headers: bearer })).status).toBe(200);
  });
});

describe("Secure session cookie", () => {
  it("is marked Secure when the server is told it is reached over HTTPS, and not otherwise", async () => {
    const plain = await server(new SignInFailureLimiter());
    const secure = await server(new SignInFailureLimiter(), { secureCookie: true });
    const signIn = (url: string) =>
      send(`${url}/api/session`, OTHER, { method: "POST", body: { token: TOKEN } });
    expect(String((await signIn(plain)).headers["set-cookie"])).not.toMatch(/Secure/);
    expect(String((await signIn(secure)).headers["set-cookie"])).toMatch(
      /^toolbridge_session=v1\.[^;]+; Path=\/; HttpOnly; Secure; SameSite=Strict; Max-Age=43200$/,
    );
    const signOut = await send(`${secure}/api/session`, OTHER, { method: "DELETE" });
    expect(String(signOut.headers["set-cookie"])).toMatch(/; Secure;.*Max-Age=0$/);
  });

  it("serve takes it from the config's server.secureCookie", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "tb-secure-cookie-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(
      path.join(dir, "toolbridge.config.json"),
      JSON.stringify({ server: { secureCookie: true } }),
    );
    const serve = await startServe(["--token", TOKEN, "--db", path.join(dir, "s.db")], { cwd: dir });
    cleanups.push(() => void serve.stop());
    const url = serve.url;
    const reply = await send(`${url}/api/session`, OTHER, { method: "POST", body: { token: TOKEN } });
    expect(String(reply.headers["set-cookie"])).toMatch(/; HttpOnly; Secure; SameSite=Strict;/);
  });
});
