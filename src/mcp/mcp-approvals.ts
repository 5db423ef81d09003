import { createHash, randomBytes, randomUUID } from "node:crypto";
import { createRequestStateCodec, type RequestStateCodec } from "@modelcontextprotocol/server";
import type { ApprovalPolicyConfig } from "../tools/approval-policy.js";
import { ToolbridgeError } from "../tools/errors.js";

export class McpApprovalConfigError extends ToolbridgeError {
  override name = "McpApprovalConfigError";
}

/**
 * Records used requestState ids; `consume` answers false for an id seen before (a replayed retry). A ledger in a
 * database another server reaches over the network (PostgreSQL) answers asynchronously.
 */
export interface RequestStateLedger {
  consume(id: string, expiresAtMs: number): boolean | Promise<boolean>;
}

/** A ledger for one process (library use without a database): replays are caught on this instance only. */
export class MemoryRequestStateLedger implements RequestStateLedger {
  readonly #used = new Map<string, number>();
  consume(id: string, expiresAtMs: number): boolean {
    const now = Date.now();
    for (const [key, expires] of this.#used) if (expires < now) this.#used.delete(key);
    if (this.#used.has(id)) return false;
    this.#used.set(id, expiresAtMs);
    return true;
  }
}

export interface McpApprovalOptions {
  /**
   * Policy per tool name (`always` | `ask` | `never`), or a function asked at every list and call (so settings changed
   * at run time, e.g. through the server's tool settings, apply at once). Unlisted tools: `ask` when they require
   * approval.
   */
  policies?: ApprovalPolicyConfig;
  /**
   * The connecting clients ask their user before each tool call themselves (as desktop clients do), so `ask` tools
   * run without an elicitation round. Off by default.
   */
  clientAsksUser?: boolean;
  /**
   * HMAC key for requestState, or a function giving it on first use (the database is then opened only when a gated
   * tool is called). Instances that share it (and a ledger) can finish each other's approval rounds.
   */
  signingKey?: string | (() => string);
  /** How long an approval question stays answerable. Default 600 s. */
  ttlSeconds?: number;
  /** Where used states are recorded. Default: in memory (this process only). */
  ledger?: RequestStateLedger | (() => RequestStateLedger);
}

/** What toolbridge signs into requestState: bound to the tool, its arguments, the caller and an expiry. */
export interface McpStatePayload {
  /** `approval`: a person's decision is being asked; `tool`: the tool's own multi-round state. */
  kind: "approval" | "tool";
  id: string;
  tool: string;
  args: string;
  caller: string;
  expiresAt: number;
  data?: unknown;
}

/** Resolved approval settings shared by every server instance of one endpoint (stateless serving needs that). */
export class McpApprovals {
  readonly clientAsksUser: boolean;
  readonly ttlSeconds: number;
  /** The policies the call gate applies to MCP calls (undefined: every tool follows its annotations). */
  readonly policies: ApprovalPolicyConfig | undefined;
  readonly #key: string | (() => string);
  readonly #ledgerSource: RequestStateLedger | (() => RequestStateLedger);
  #codec: RequestStateCodec<McpStatePayload> | undefined;
  #ledger: RequestStateLedger | undefined;

  constructor(options: McpApprovalOptions = {}) {
    this.ttlSeconds = options.ttlSeconds ?? 600;
    this.#key = options.signingKey ?? randomBytes(32).toString("base64url");
    this.#ledgerSource = options.ledger ?? new MemoryRequestStateLedger();
    this.clientAsksUser = options.clientAsksUser ?? false;
    this.policies = options.policies;
  }

  /** Signs and verifies requestState; built on first use (the key may come from the database). */
  get codec(): RequestStateCodec<McpStatePayload> {
    this.#codec ??= createRequestStateCodec<McpStatePayload>({
      key: typeof this.#key === "function" ? this.#key() : this.#key,
      ttlSeconds: this.ttlSeconds,
    });
    return this.#codec;
  }

  get ledger(): RequestStateLedger {
    this.#ledger ??= typeof this.#ledgerSource === "function" ? this.#ledgerSource() : this.#ledgerSource;
    return this.#ledger;
  }

  payload(kind: McpStatePayload["kind"], tool: string, args: unknown, caller: string, data?: unknown) {
    const payload: McpStatePayload = {
      kind,
      id: randomUUID(),
      tool,
      args: argumentsHash(args),
      caller,
      expiresAt: Date.now() + this.ttlSeconds * 1000,
    };
    if (data !== undefined) payload.data = data;
    return payload;
  }
}

/** A stable hash of a call's arguments (keys sorted), so a state cannot be replayed with other arguments. */
export function argumentsHash(args: unknown): string {
  return createHash("sha256").update(canonicalJson(args)).digest("base64url");
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}

/** The text a client without elicitation gets: what happened, and the three ways a person can allow the tool. */
export function noElicitationMessage(tool: string): string {
  return (
    `"${tool}" needs a person's approval before it runs, and this MCP client cannot ask one: it declared no ` +
    "elicitation capability. Nothing ran. To allow it: use an MCP client that supports elicitation (it will show " +
    "an approve/decline prompt); or, if this client asks its user before every tool call itself (as desktop clients " +
    'do), set "mcp": {"clientAsksUser": true} in toolbridge.config.json (or TOOLBRIDGE_MCP_CLIENT_ASKS_USER=1); ' +
    `or set "mcp": {"approvals": {"${tool}": "always"}} to run it without asking.`
  );
}

/** The confirmation question a person sees. */
export function approvalQuestion(tool: string, args: unknown): string {
  const shown = JSON.stringify(args ?? {});
  return `Allow the tool "${tool}" to run with these arguments? ${shown.length > 2000 ? `${shown.slice(0, 2000)}…` : shown}`;
}

export interface McpApprovalSettings {
  clientAsksUser?: boolean | undefined;
  /** Per tool name, or a function asked per list and call (the server's tool settings). */
  approvals?: ApprovalPolicyConfig | undefined;
  signingKey?: string | undefined;
  approvalTtlSeconds?: number | undefined;
}

/** The database side of approvals (see McpApprovalLedger in the store): single-use states and the shared key. */
export interface McpApprovalStore extends RequestStateLedger {
  signingKey(): string;
}

/**
 * Approval settings from config and environment (the environment wins). The ledger and, when no key is configured,
 * the signing key live in the store `openStore` gives, so every instance on one database agrees; it is called only
 * when a gated tool is first asked for (serving only ungated tools opens no database).
 */
export function mcpApprovalsFromConfig(
  settings: McpApprovalSettings | undefined,
  openStore: (() => McpApprovalStore) | undefined,
  env: NodeJS.ProcessEnv = process.env,
): McpApprovals {
  const envAsks = env.TOOLBRIDGE_MCP_CLIENT_ASKS_USER;
  const clientAsksUser =
    envAsks !== undefined && envAsks !== ""
      ? /^(1|true|yes)$/i.test(envAsks)
      : (settings?.clientAsksUser ?? false);
  const fromEnv = env.TOOLBRIDGE_MCP_SIGNING_KEY;
  if (fromEnv && fromEnv.length < 32) {
    throw new McpApprovalConfigError(
      "TOOLBRIDGE_MCP_SIGNING_KEY must be at least 32 characters; use a random string (e.g. `openssl rand -base64 32`) or unset it to keep a generated key in the database.",
    );
  }
  let store: McpApprovalStore | undefined;
  const opened = openStore ? () => (store ??= openStore()) : undefined;
  const options: McpApprovalOptions = { clientAsksUser };
  const configured = fromEnv || settings?.signingKey;
  if (configured) options.signingKey = configured;
  else if (opened) options.signingKey = () => opened().signingKey();
  if (settings?.approvals) options.policies = settings.approvals;
  if (settings?.approvalTtlSeconds) options.ttlSeconds = settings.approvalTtlSeconds;
  if (opened) options.ledger = opened;
  return new McpApprovals(options);
}
