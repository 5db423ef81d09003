import { z } from "zod";
import { mcpServersSchema } from "../mcp/mcp-servers-config.js";
import { modelConfigSchema, namedModelsConfigSchema } from "./model-config-schema.js";

/**
 * The shape of toolbridge.config.json. Unknown keys are errors, not silently ignored: a typo such as `filesytem`
 * would otherwise quietly turn the filesystem tools off.
 */
export const filesystemConfigSchema = z.strictObject({
  roots: z
    .array(z.string().min(1, "a root must be a non-empty path"))
    .min(1, "list at least one root directory"),
  allowWrites: z.boolean().default(false),
  maxReadBytes: z.number().int().positive().optional(),
});

export const toolsConfigSchema = z.strictObject({
  allow: z.array(z.string().min(1)).optional(),
  deny: z.array(z.string().min(1)).optional(),
  concurrency: z.number().int().min(1).max(256).optional(),
  timeoutMs: z.number().int().positive().optional(),
  maxOutputChars: z.number().int().positive().optional(),
  pageSize: z.number().int().min(1).max(10_000).optional(),
});

/** Tool preselection for large catalogues (run, chat, `serve`'s runs): see AgentOptions.toolSelection. */
export const toolSelectionConfigSchema = z.strictObject({
  /** Tools retrieval picks per turn, by the conversation; the `always` ones and those already called come on top. */
  maxTools: z.number().int().min(1, "maxTools must be at least 1").max(10_000),
  /** Tools always offered: names or `*` patterns. */
  always: z.array(z.string().min(1)).optional(),
});

export const redactionConfigSchema = z.strictObject({
  /** Environment variables whose values are secrets, besides those whose names look like one (…KEY, …TOKEN). */
  envVars: z.array(z.string().min(1)).optional(),
});

export const webSearchConfigSchema = z.discriminatedUnion("provider", [
  z.strictObject({
    provider: z.literal("searxng"),
    url: z.url(),
    maxResults: z.number().int().min(1).max(20).optional(),
  }),
  z.strictObject({
    provider: z.literal("brave"),
    apiKeyEnv: z.string().min(1).optional(),
    url: z.url().optional(),
    maxResults: z.number().int().min(1).max(20).optional(),
  }),
]);

/** How `toolbridge mcp` and `serve` treat tools that need a person's approval (see docs/security.md, "MCP approvals"). */
export const mcpServeConfigSchema = z.strictObject({
  /**
   * The connecting MCP clients ask their user before every tool call themselves (as desktop clients do), so tools
   * whose policy is `ask` run without an elicitation round. Env: TOOLBRIDGE_MCP_CLIENT_ASKS_USER=1.
   */
  clientAsksUser: z.boolean().optional(),
  /** Policy per tool name over MCP: `always` runs, `ask` needs a person's decision, `never` is not offered. */
  approvals: z.record(z.string().min(1), z.enum(["always", "ask", "never"])).optional(),
  /**
   * HMAC key for approval state (32+ characters). Instances sharing it and the database finish each other's approval
   * rounds. Env: TOOLBRIDGE_MCP_SIGNING_KEY. Default: generated once and kept in the database.
   */
  signingKey: z
    .string()
    .min(32, "signingKey must be at least 32 characters (use a random string)")
    .optional(),
  /** How long an approval question stays answerable, in seconds. Default 600. */
  approvalTtlSeconds: z.number().int().min(10).max(86_400).optional(),
});

/** `toolbridge serve`'s settings that belong to the deployment rather than to one start (flags win over them). */
export const serverConfigSchema = z.strictObject({
  /** Mark the session cookie `Secure` (the server is reached over HTTPS, through a TLS proxy). Flag: --secure-cookie. */
  secureCookie: z.boolean().optional(),
  /** Browser origins allowed besides the server's own (`https://app.example`). Flag: --allowed-origin. */
  allowedOrigins: z.array(z.string().min(1)).optional(),
  /** Host header names allowed besides localhost (a name behind a proxy). Flag: --allowed-host. */
  allowedHosts: z.array(z.string().min(1)).optional(),
});

export const configSchema = z.strictObject({
  $schema: z.string().optional(),
  /**
   * Where runs, conversations, notes, tool settings and MCP approval state are kept: a path to an SQLite file
   * (relative to this file's folder), or a PostgreSQL URL (`postgres://user@host:5432/db`) for several server
   * instances sharing one database. `--db` and `TOOLBRIDGE_DB_URL` win over it.
   */
  db: z.string().min(1, "db must be a path or a postgres:// URL").optional(),
  filesystem: filesystemConfigSchema.optional(),
  tools: toolsConfigSchema.optional(),
  /** Offer each model turn only the tools that fit the conversation (large catalogues, small models). */
  toolSelection: toolSelectionConfigSchema.optional(),
  redaction: redactionConfigSchema.optional(),
  /** Web search is off unless a backend is configured here. */
  webSearch: webSearchConfigSchema.optional(),
  /** External MCP servers to mount, in exactly the shape MCP desktop clients keep (`command`/`args`/`env`, `url`). */
  mcpServers: mcpServersSchema.optional(),
  /** The model `run` and `chat` use unless a flag or environment variable names another (see model-config-schema). */
  model: modelConfigSchema.optional(),
  /**
   * Named models for `serve` (`GET /v1/models`, the `model` of a request), each with the settings of `model`. `model`
   * stays the default; without it the first named one is.
   */
  models: namedModelsConfigSchema.optional(),
  /** Serving tools over MCP (`toolbridge mcp`, `serve`): approvals and their signing key. */
  mcp: mcpServeConfigSchema.optional(),
  /** `toolbridge serve` (see serverConfigSchema). */
  server: serverConfigSchema.optional(),
});

export type ToolbridgeConfig = z.output<typeof configSchema>;
