import type { CallToolResult, Tool } from "@modelcontextprotocol/server";

/** Everything a handler gets besides its arguments. */
export interface ToolContext {
  /** Fires on timeout, on cancellation by the caller (MCP `notifications/cancelled`, run aborted) and on shutdown. */
  signal: AbortSignal;
  /** The id of this call (agent call id or MCP request id), for logs and progress. */
  callId: string;
  /**
   * The agent run the call belongs to; undefined outside a run (MCP, `tools call`). With `callId` it names the call
   * uniquely across runs and instances: an idempotency key for a tool with side effects.
   */
  runId: string | undefined;
  /** Who asked, for per-user cooldowns and rate limits. */
  userId: string | undefined;
  /**
   * How long the call waited for a place in the executor before the handler started (ms): a tool with a queue of its
   * own takes it off that queue's wait, so the whole wait stays within one bound.
   */
  waitedMs?: number;
  /** Report progress; forwarded as MCP `notifications/progress` when the caller asked for it. */
  reportProgress(progress: number, total?: number, message?: string): void;
}

/**
 * What a handler may return. Strings become a text block; objects become `structuredContent` plus their JSON text;
 * a value that already is a `CallToolResult` passes through unchanged.
 */
export type ToolHandlerOutput = CallToolResult | string | number | boolean | null | undefined | object;

export type ToolHandler<Args = Record<string, unknown>> = (
  args: Args,
  context: ToolContext,
) => ToolHandlerOutput | Promise<ToolHandlerOutput>;

export interface RateLimit {
  /** At most this many calls … */
  maxCalls: number;
  /** … per this many milliseconds, per (user, tool). */
  windowMs: number;
}

/** toolbridge's metadata beyond the MCP tool object. None of it is sent to a model. */
export interface ToolOptions {
  /** Grouping for listings and UIs ("math", "time", "filesystem", …). */
  category?: string;
  /** Ask a person before running. Default: derived from annotations (destructive, or open-world and not read-only). */
  requiresApproval?: boolean;
  /** Per-call time limit; the handler's AbortSignal fires when it passes. */
  timeoutMs?: number;
  /**
   * Longest wait for a place in the executor (its concurrency limit) before the call is answered "busy, try again"
   * without running. Default: the executor's `maxQueueWaitMs`.
   */
  maxQueueWaitMs?: number;
  /** Minimum time between two calls of this tool by the same user. */
  cooldownMs?: number;
  rateLimit?: RateLimit;
  /** Text longer than this is cut, with a note saying so. */
  maxOutputChars?: number;
  /**
   * What a dry run reports instead of running the tool (reference 003). Only consulted for tools with side effects;
   * without it a generic description of the call is used.
   */
  describeDryRun?: (args: Record<string, unknown>) => string;
}

/** A registered tool: the MCP tool object (exactly what `tools/list` returns) plus handler and options. */
export interface ToolDefinition<Args = Record<string, unknown>> extends Readonly<ToolOptions> {
  readonly tool: Tool;
  readonly handler: ToolHandler<Args>;
  readonly category: string;
  readonly requiresApproval: boolean;
  /** True when the tool may change something outside itself (not marked read-only). Dry runs skip such tools. */
  readonly hasSideEffects: boolean;
}

// biome-ignore lint/suspicious/noExplicitAny: a registry holds tools of every argument type.
export type AnyToolDefinition = ToolDefinition<any>;
