import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, Server } from "node:http";
import { createNodeWebSocket } from "@hono/node-ws";
import type { Context, Hono } from "hono";
import type { WSContext } from "hono/ws";
import { z } from "zod";
import { CallGate, executeOptionsFor } from "../../tools/call-gate.js";
import type { ToolExecutor } from "../../tools/tool-executor.js";
import type { ToolRegistry } from "../../tools/tool-registry.js";
import { unauthorized } from "../bearer-token-auth.js";
import { wsErrorMessage } from "../error-response.js";
import { badRequest, HttpError, notFound } from "../http-error.js";
import { decisionsSchema, parseBody, startRunSchema } from "../runs-api/run-request-schemas.js";
import type { RunService } from "../runs-api/run-service.js";
import { sessionCookieOf } from "../security/session-cookie.js";
import type { SignInAttempts } from "../security/sign-in-limit.js";
import { gateRefusal } from "../tools-api/gate-refusal.js";
import type { PendingApprovalsFeed } from "./pending-approvals-feed.js";
import { watchUnauthenticatedBytes } from "./unauthenticated-byte-budget.js";

export interface WsApiOptions {
  registry: ToolRegistry;
  executor: ToolExecutor;
  /** Runs over the socket (start, subscribe, decide, cancel); without it only the tool messages work. */
  runs?: RunService;
  /** When set, a socket must authenticate: Bearer header or `authenticate` at the upgrade, else `{type:"auth"}` first. */
  token?: string;
  /** Extra check of the upgrade request (the browser's session cookie); true = authenticated. */
  authenticate?: (request: Request) => boolean;
  /** Bytes the server may have queued for one socket; past this it closes the socket (1013). Default 4 MiB. */
  maxBufferedBytes?: number;
  /** Recorded as who decided, on decisions made over the socket. Default "websocket". */
  decidedBy?: string;
  /** How long a socket may stay unauthenticated. Default 10 s. */
  authTimeoutMs?: number;
  /** The sign-in failure limit: wrong tokens at the upgrade or in `{type:"auth"}` count against the client. */
  attempts?: SignInAttempts | undefined;
  /** Decides whether a `tools/call` runs, as on every surface. Default: one over `registry` (annotations only). */
  gate?: CallGate | undefined;
  /**
   * Who a socket's calls are made for, from its upgrade request (see callerIdentity: the token's principal on a
   * server with a token — a socket calls tools only once authenticated — else the client's address).
   */
  callerOf?: ((c: Context) => string) | undefined;
  /** Largest message, in bytes (the HTTP body limit): a bigger frame closes the socket (1009) unread. Default 4 MiB. */
  maxMessageBytes?: number | undefined;
  /**
   * Bytes a socket may send before it has authenticated (the `auth` message is small): past this it is closed (1009)
   * and nothing more is read from it. Default 16 KiB.
   */
  maxUnauthenticatedBytes?: number | undefined;
  /** Pushes `{type: "approvals/pending", calls}` to every signed-in socket: on sign-in, then whenever it changes. */
  pendingApprovals?: PendingApprovalsFeed | undefined;
}

/** Default per-message limit: the HTTP body limit's default. */
export const DEFAULT_WS_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;
/** Default budget of a socket that has not authenticated yet. */
export const DEFAULT_WS_MAX_UNAUTHENTICATED_BYTES = 16 * 1024;

/** What a socket knows of the sign-in limit for its own client. */
interface SocketSignIn {
  retryAfter(): number;
  failed(): void;
}

const messageSchema = z.looseObject({ id: z.union([z.string(), z.number()]).optional(), type: z.string() });
const authSchema = z.looseObject({ token: z.string() });
const toolsListSchema = z.looseObject({ cursor: z.string().optional(), category: z.string().optional() });
const toolsCallSchema = z.looseObject({
  name: z.string().min(1),
  arguments: z.unknown().optional(),
  confirm: z.boolean().optional(),
  dryRun: z.boolean().optional(),
});
const runIdSchema = z.looseObject({ runId: z.string().min(1) });
const subscribeSchema = z.looseObject({
  runId: z.string().min(1),
  after: z.number().int().min(0).optional(),
});

/** Close codes: 1008 policy (authentication), 1013 try again later (the client does not keep up). */
const POLICY_VIOLATION = 1008;
const TRY_AGAIN_LATER = 1013;

function digest(value: string): Buffer {
  return createHash("sha256").update(value, "utf8").digest();
}

/** What a message's body is, without its envelope (id, type). */
function payload(message: Record<string, unknown>): Record<string, unknown> {
  const { id: _id, type: _type, ...rest } = message;
  return rest;
}

class WsSession {
  readonly #subscriptions = new Map<string, () => void>();
  authenticated: boolean;
  #closed = false;
  readonly #authTimer: ReturnType<typeof setTimeout> | undefined;
  readonly #gate: CallGate;
  #stopFeed: (() => void) | undefined;

  constructor(
    readonly ws: WSContext,
    readonly options: WsApiOptions,
    authenticated: boolean,
    /** Who this socket's calls are made for (fair shares, cooldowns, rate limits). */
    readonly caller: string,
    readonly signIn?: SocketSignIn,
  ) {
    this.#gate = options.gate ?? new CallGate(options.registry);
    this.authenticated = authenticated;
    if (!authenticated) {
      this.#authTimer = setTimeout(
        () => this.close(POLICY_VIOLATION, "authenticate first: {type:'auth', token}"),
        options.authTimeoutMs ?? 10_000,
      );
      this.#authTimer.unref?.();
    } else this.#signedIn();
  }

  /** What every signed-in socket gets without asking: the pending approvals of all runs. */
  #signedIn(): void {
    this.#stopFeed = this.options.pendingApprovals?.listen((calls) =>
      this.send({ type: "approvals/pending", calls }),
    );
  }

  /** Send, unless the socket already holds too much: then close it so the client reconnects and resubscribes. */
  send(message: Record<string, unknown>): void {
    if (this.#closed) return;
    const raw = this.ws.raw as { bufferedAmount?: number } | undefined;
    if ((raw?.bufferedAmount ?? 0) > (this.options.maxBufferedBytes ?? 4 * 1024 * 1024)) {
      this.close(TRY_AGAIN_LATER, "send buffer full: reconnect and subscribe from your last seq");
      return;
    }
    this.ws.send(JSON.stringify(message));
  }

  /** The error reply, as HTTP would answer it (see wsErrorMessage); its HTTP status is returned. */
  sendError(id: string | number | undefined, error: unknown): number {
    const message = wsErrorMessage(id, error);
    this.send({ ...message });
    return message.status;
  }

  close(code: number, reason: string): void {
    if (this.#closed) return;
    this.ended();
    this.ws.close(code, reason);
  }

  /**
   * Close with `code` and read nothing more: the close frame goes out, and the connection is dropped shortly after
   * instead of waiting for the client's close frame behind whatever else it is still sending.
   */
  refuseUnread(code: number, reason: string): void {
    this.close(code, reason);
    const raw = this.ws.raw as { terminate?: () => void } | undefined;
    setTimeout(() => raw?.terminate?.(), 1000).unref?.();
  }

  /** The socket is gone: drop every subscription. */
  ended(): void {
    this.#closed = true;
    if (this.#authTimer) clearTimeout(this.#authTimer);
    this.#stopFeed?.();
    for (const unsubscribe of this.#subscriptions.values()) unsubscribe();
    this.#subscriptions.clear();
  }

  get closed(): boolean {
    return this.#closed;
  }

  async handle(text: string): Promise<void> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      this.sendError(
        undefined,
        badRequest(
          'Messages must be JSON objects like {"id": 1, "type": "tools/list"}.',
          null,
          "invalid_json",
        ),
      );
      return;
    }
    const envelope = messageSchema.safeParse(parsed);
    if (!envelope.success) {
      const id = (parsed as { id?: unknown } | null)?.id;
      this.sendError(
        typeof id === "string" || typeof id === "number" ? id : undefined,
        badRequest(
          'A message needs a string "type" (and may carry an "id" echoed in the reply).',
          "type",
          "invalid_message",
        ),
      );
      return;
    }
    const { id, type } = envelope.data;
    const body = payload(envelope.data);
    if (!this.authenticated) {
      if (type !== "auth") {
        this.sendError(id, unauthorized('Authenticate first: {"type":"auth","token":"…"}.'));
        this.close(POLICY_VIOLATION, "not authenticated");
        return;
      }
    }
    try {
      const result = await this.#dispatch(type, body);
      const reply: Record<string, unknown> = { type: "result", result };
      if (id !== undefined) reply.id = id;
      this.send(reply);
    } catch (error) {
      const status = this.sendError(id, error);
      if (status === 401) this.close(POLICY_VIOLATION, "wrong token");
      if (status === 429) this.close(POLICY_VIOLATION, "too many wrong tokens");
    }
  }

  async #dispatch(type: string, body: Record<string, unknown>): Promise<unknown> {
    switch (type) {
      case "auth":
        return this.#auth(body);
      case "tools/list": {
        const options = parseBody(toolsListSchema, body, "tools/list");
        return this.options.registry.list({
          ...(options.cursor !== undefined ? { cursor: options.cursor } : {}),
          ...(options.category !== undefined ? { category: options.category } : {}),
        });
      }
      case "tools/call": {
        const call = parseBody(toolsCallSchema, body, "tools/call");
        const args = call.arguments ?? {};
        // Like POST /api/tools/{name}/call: `confirm: true` says a person confirmed this very call.
        const answer = this.#gate.check(
          { name: call.name, arguments: args },
          { decision: call.confirm === true ? "approved" : undefined, dryRun: call.dryRun === true },
        );
        if (answer.action !== "run")
          throw gateRefusal(call.name, answer, '{"type": "tools/list"} lists the tools this server has.');
        return this.options.executor.call(call.name, args, {
          userId: this.caller,
          ...executeOptionsFor(answer, call.dryRun === true),
        });
      }
      case "runs/start": {
        const input = parseBody(startRunSchema, body, "run");
        return this.#runs().start({
          message: input.message,
          ...(input.conversationId ? { conversationId: input.conversationId } : {}),
          ...(input.model ? { model: input.model } : {}),
          ...(input.toolChoice ? { toolChoice: input.toolChoice } : {}),
          ...(input.limits ? { limits: input.limits } : {}),
        });
      }
      case "runs/subscribe":
        return this.#subscribe(parseBody(subscribeSchema, body, "runs/subscribe"));
      case "runs/unsubscribe": {
        const { runId } = parseBody(runIdSchema, body, "runs/unsubscribe");
        this.#subscriptions.get(runId)?.();
        return { runId, subscribed: this.#subscriptions.delete(runId) };
      }
      case "runs/get":
        return this.#runs().getRun(parseBody(runIdSchema, body, "runs/get").runId);
      case "runs/decide": {
        const { runId } = parseBody(runIdSchema, body, "runs/decide");
        const { decisions } = parseBody(decisionsSchema, { decisions: body.decisions }, "decisions");
        return {
          runId,
          ...(await this.#runs().decide(runId, decisions, this.options.decidedBy ?? "websocket")),
        };
      }
      case "runs/cancel":
        return this.#runs().cancel(
          parseBody(runIdSchema, body, "runs/cancel").runId,
          this.options.decidedBy ?? "websocket",
        );
      default:
        throw badRequest(
          `Unknown message type "${type}". Known: auth, tools/list, tools/call, runs/start, runs/subscribe, runs/unsubscribe, runs/get, runs/decide, runs/cancel.`,
          "type",
          "unknown_message_type",
        );
    }
  }

  #runs(): RunService {
    if (!this.options.runs)
      throw notFound("This server runs no agents: the runs/* messages are off.", "runs_off");
    return this.options.runs;
  }

  #auth(body: Record<string, unknown>) {
    const { token } = parseBody(authSchema, body, "auth");
    const expected = this.options.token;
    const wait = this.signIn?.retryAfter() ?? 0;
    if (wait > 0) {
      // Not compared at all while the client waits: the answer tells a guesser nothing.
      throw new HttpError(
        429,
        `Too Many Requests: too many wrong tokens from this address; no token is checked for ${wait} s.`,
        { code: "too_many_sign_in_failures" },
      );
    }
    if (expected !== undefined && !timingSafeEqual(digest(token), digest(expected))) {
      this.signIn?.failed();
      // A wrong token ends the socket (after this error is sent): guessing must cost a new connection each time.
      throw unauthorized("Unauthorized: the token is wrong.");
    }
    this.authenticated = true;
    if (this.#authTimer) clearTimeout(this.#authTimer);
    if (!this.#stopFeed) this.#signedIn();
    return { authenticated: true };
  }

  async #subscribe({ runId, after }: { runId: string; after?: number | undefined }) {
    const service = this.#runs();
    this.#subscriptions.get(runId)?.();
    this.#subscriptions.delete(runId);
    const unsubscribe = await service.subscribe(runId, after ?? 0, ({ seq, event }) =>
      this.send({ type: "run-event", runId, seq, event }),
    );
    if (this.closed) {
      unsubscribe();
      return { runId, subscribed: false };
    }
    this.#subscriptions.set(runId, unsubscribe);
    // Approvals still open are sent again, even when the approval-requested event lies before `after`.
    const pending = await service.pending(runId);
    if (pending.length > 0) this.send({ type: "approval-requested", runId, calls: pending });
    return { runId, subscribed: true };
  }
}

/**
 * The WebSocket API at `/ws`: JSON messages `{id?, type, …}` answered by `{id, type: "result", result}` or
 * `{id, type: "error", status, error: {message, type, param, code}}` (as HTTP answers), and pushes (`tools/list_changed`, `run-event`,
 * `approval-requested`). The app's guards (Host/Origin) run on the upgrade request like on any route. Returns what
 * the HTTP server needs: `injectWebSocket(server)` once it exists, `close()` at shutdown.
 */
export function mountWsApi(app: Hono, options: WsApiOptions) {
  const { upgradeWebSocket, injectWebSocket, wss } = createNodeWebSocket({ app });
  // The message limit is the HTTP body limit. `ws` checks it against each frame's declared length (and a fragmented
  // message's running total) before it reads the payload, and closes the socket with 1009: nothing is buffered whole.
  // @hono/node-ws makes the server without options; `ws` reads this at every upgrade.
  (wss as { options: { maxPayload: number } }).options.maxPayload =
    options.maxMessageBytes ?? DEFAULT_WS_MAX_MESSAGE_BYTES;
  const unauthenticatedBudget = options.maxUnauthenticatedBytes ?? DEFAULT_WS_MAX_UNAUTHENTICATED_BYTES;
  const tooMuchBeforeAuth = `authenticate first: ${unauthenticatedBudget} bytes at most before that`;
  const sessions = new Set<WsSession>();
  const expected = options.token === undefined ? undefined : digest(options.token);
  const unfollow = options.registry.onChange(() => {
    for (const session of sessions) if (session.authenticated) session.send({ type: "tools/list_changed" });
  });

  app.get(
    "/ws",
    upgradeWebSocket((c) => {
      const header = /^Bearer[ ]+(\S+)\s*$/i.exec(c.req.header("authorization") ?? "");
      const authenticated =
        expected === undefined ||
        (header !== null && timingSafeEqual(digest(header[1] as string), expected)) ||
        options.authenticate?.(c.req.raw) === true;
      const attempts = options.attempts;
      // A wrong Bearer header or session cookie at the upgrade is a failed sign-in; none at all is not.
      if (!authenticated && (header !== null || sessionCookieOf(c.req.header("cookie")) !== undefined))
        attempts?.failed(c);
      const signIn: SocketSignIn | undefined = attempts
        ? { retryAfter: () => attempts.retryAfter(c), failed: () => attempts.failed(c) }
        : undefined;
      const caller = options.callerOf?.(c) ?? "websocket";
      const tcp = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket;
      let session: WsSession | undefined;
      const open = (ws: WSContext) => {
        if (session) return session;
        session = new WsSession(ws, options, authenticated, caller, signIn);
        sessions.add(session);
        const current = session;
        // Until it authenticates, a socket may send a few KiB (its `auth`), counted on the wire as they arrive.
        if (!authenticated && tcp) {
          watchUnauthenticatedBytes(tcp, {
            budget: unauthenticatedBudget,
            authenticated: () => current.authenticated,
            exceeded: () => current.refuseUnread(1009, tooMuchBeforeAuth),
          });
        }
        return session;
      };
      return {
        onOpen(_event, ws) {
          open(ws);
        },
        onMessage(event, ws) {
          const current = open(ws);
          if (current.closed) return;
          // A whole message that arrived in one read is delivered before the byte count sees it: checked here too.
          const size = typeof event.data === "string" ? Buffer.byteLength(event.data) : event.data.byteLength;
          if (!current.authenticated && size > unauthenticatedBudget) {
            current.refuseUnread(1009, tooMuchBeforeAuth);
            return;
          }
          if (typeof event.data !== "string") {
            current.sendError(
              undefined,
              badRequest("Binary messages are not understood; send JSON text.", null, "invalid_json"),
            );
            return;
          }
          void current.handle(event.data);
        },
        onClose() {
          if (session) {
            session.ended();
            sessions.delete(session);
          }
        },
      };
    }),
  );

  return {
    injectWebSocket: (server: Server) => injectWebSocket(server),
    async close() {
      unfollow();
      for (const session of sessions) session.close(1001, "server shutting down");
      sessions.clear();
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
