import { randomUUID } from "node:crypto";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { CallLimiter } from "./call-limiter.js";
import { ToolNotFoundError } from "./errors.js";
import { errorResult, normalizeToolResult } from "./normalize-tool-result.js";
import { createRedactor, type Redactor, type RedactorOptions, redactDeep } from "./redact-secrets.js";
import { Semaphore } from "./semaphore.js";
import type { AnyToolDefinition, ToolContext } from "./tool-definition.js";
import type { ToolRegistry } from "./tool-registry.js";
import { truncateToolResult } from "./truncate-tool-result.js";
import { validateAgainstSchema, validateToolInput } from "./validate-tool-input.js";

export interface ToolExecutorOptions {
  /** Calls running at once across this executor. Default 4. */
  concurrency?: number;
  /**
   * Calls one user (`ExecuteOptions.userId`; calls without one share the key "anonymous") may run at once. Default:
   * one less than `concurrency` (at least 1), so a user flooding the executor always leaves a place for somebody else;
   * waiting calls are served user by user in turn.
   */
  perUserConcurrency?: number;
  /** Time limit for tools that set none. Default 30 s. */
  defaultTimeoutMs?: number;
  /**
   * Longest wait for a place (the concurrency limit) for tools that set none; a call still waiting then is answered
   * "busy, try again" without running, so no caller waits without bound behind somebody else's flood. Default 10 s.
   */
  maxQueueWaitMs?: number;
  /**
   * Output limit for tools that set none, and for the messages `observe` caps (denials, invalid calls). Default 20,000
   * characters. An agent built on a registry sets it from its `maxObservationChars`.
   */
  defaultMaxOutputChars?: number;
  /**
   * Secret redaction applied to every result, and (through `redactor`) to an agent's model text, events and traces;
   * `false` turns it off (tests only). An agent built on a registry sets it from its `redact`.
   */
  redact?: RedactorOptions | false;
  /** Clock for cooldowns and rate limits. */
  now?: () => number;
}

export interface ToolCallRequest {
  name: string;
  arguments?: unknown;
  /** Stable id of the call (agent call id, MCP request id). Generated when absent. */
  callId?: string;
  /** The agent run the call belongs to (handed to the handler as `context.runId`). */
  runId?: string;
}

export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

export interface ExecuteOptions {
  signal?: AbortSignal;
  /** The user on whose behalf the call runs, for cooldowns and rate limits. */
  userId?: string;
  onProgress?: (update: ProgressUpdate) => void;
  /** Report what a tool with side effects would do instead of running it. Read-only tools still run. */
  dryRun?: boolean;
  /** Report what the call would do instead of running it, read-only tool or not (see CallGate's executeOptionsFor). */
  describeInstead?: boolean;
}

export type ToolCallStatus =
  | "ok"
  | "tool-error"
  | "invalid-input"
  | "unknown-tool"
  | "timeout"
  | "cancelled"
  | "limited"
  | "invalid-output"
  | "dry-run";

export interface ToolCallOutcome {
  callId: string;
  name: string;
  arguments: unknown;
  result: CallToolResult;
  status: ToolCallStatus;
  startedAt: number;
  durationMs: number;
}

class ToolTimeoutError extends Error {
  override name = "ToolTimeoutError";
}

/** The reason a wait for a place ends when it has lasted too long. */
class ToolBusyError extends Error {
  override name = "ToolBusyError";
}

function formatDuration(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1)}s` : `${ms}ms`;
}

/** Rejects when the signal aborts; never resolves otherwise. */
function whenAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}

/**
 * Runs tool calls: validation, cooldowns and rate limits, a concurrency limit, a timeout with an AbortSignal handed
 * to the handler, normalisation to MCP CallToolResult, outputSchema checks, truncation and secret redaction.
 * Failures of the tool become `isError` results; only an unknown tool throws (a protocol error at the MCP boundary).
 */
export class ToolExecutor {
  readonly #semaphore: Semaphore;
  readonly #limiter: CallLimiter;
  readonly #redact: Redactor | undefined;
  readonly #defaultTimeoutMs: number;
  readonly #maxQueueWaitMs: number;
  readonly #defaultMaxOutputChars: number;

  constructor(
    readonly registry: ToolRegistry,
    options: ToolExecutorOptions = {},
  ) {
    const concurrency = options.concurrency ?? 4;
    this.#semaphore = new Semaphore(concurrency, options.perUserConcurrency ?? Math.max(1, concurrency - 1));
    this.#limiter = new CallLimiter(options.now);
    this.#redact = options.redact === false ? undefined : createRedactor(options.redact);
    this.#defaultTimeoutMs = options.defaultTimeoutMs ?? 30_000;
    this.#maxQueueWaitMs = options.maxQueueWaitMs ?? 10_000;
    const max = options.defaultMaxOutputChars ?? 20_000;
    if (!Number.isInteger(max) || max < 1) {
      throw new RangeError(
        `defaultMaxOutputChars must be a positive whole number of characters, got ${max}.`,
      );
    }
    this.#defaultMaxOutputChars = max;
  }

  /** Calls running right now (for tests and status displays). */
  get activeCalls(): number {
    return this.#semaphore.active;
  }

  /** Run one call and return just its result. Throws ToolNotFoundError for an unknown tool. */
  async call(name: string, args: unknown, options: ExecuteOptions = {}): Promise<CallToolResult> {
    return (await this.execute({ name, arguments: args }, options)).result;
  }

  /** Run one call. Throws ToolNotFoundError for an unknown (or hidden) tool; every other failure is an outcome. */
  async execute(request: ToolCallRequest, options: ExecuteOptions = {}): Promise<ToolCallOutcome> {
    const definition = this.registry.get(request.name);
    if (!definition) throw new ToolNotFoundError(request.name, this.registry.names());
    return this.#run(definition, request, options);
  }

  /** Run several calls concurrently (within the executor's limit); outcomes come back in request order. */
  executeAll(requests: readonly ToolCallRequest[], options: ExecuteOptions = {}): Promise<ToolCallOutcome[]> {
    return Promise.all(
      requests.map(async (request) => {
        try {
          return await this.execute(request, options);
        } catch (error) {
          if (!(error instanceof ToolNotFoundError)) throw error;
          return {
            callId: request.callId ?? randomUUID(),
            name: request.name,
            arguments: request.arguments,
            result: errorResult(error.message),
            status: "unknown-tool" as const,
            startedAt: Date.now(),
            durationMs: 0,
          };
        }
      }),
    );
  }

  async #run(
    definition: AnyToolDefinition,
    request: ToolCallRequest,
    options: ExecuteOptions,
  ): Promise<ToolCallOutcome> {
    const startedAt = Date.now();
    const name = definition.tool.name;
    const callId = request.callId ?? randomUUID();
    const args = request.arguments ?? {};
    const finish = (result: CallToolResult, status: ToolCallStatus): ToolCallOutcome => ({
      callId,
      name,
      arguments: args,
      result: this.#finalize(definition, result),
      status,
      startedAt,
      durationMs: Date.now() - startedAt,
    });

    const problem = this.checkArguments(definition, args);
    if (problem !== undefined) return finish(errorResult(problem), "invalid-input");

    if (options.describeInstead || (options.dryRun && definition.hasSideEffects)) {
      const description =
        definition.describeDryRun?.(args as Record<string, unknown>) ??
        `would call ${name} with ${JSON.stringify(args)}`;
      return finish(
        { content: [{ type: "text", text: `[dry run] Nothing was changed: ${description}.` }] },
        "dry-run",
      );
    }

    const decision = this.#limiter.check(options.userId ?? "anonymous", name, definition);
    if (!decision.allowed) {
      const what = decision.reason === "cooldown" ? "is cooling down" : "has reached its rate limit";
      return finish(
        errorResult(
          `${name} ${what} for this user; try again in ${formatDuration(Math.ceil(decision.retryAfterMs))}.`,
        ),
        "limited",
      );
    }

    let release: (() => void) | undefined;
    const waitLimitMs = definition.maxQueueWaitMs ?? this.#maxQueueWaitMs;
    const waiting = new AbortController();
    const stopWaiting = () => waiting.abort(options.signal?.reason);
    options.signal?.addEventListener("abort", stopWaiting, { once: true });
    const waitTimer = setTimeout(() => waiting.abort(new ToolBusyError()), waitLimitMs);
    const queuedAt = performance.now();
    try {
      release = await this.#semaphore.acquire(
        options.signal?.aborted ? AbortSignal.abort(options.signal.reason) : waiting.signal,
        options.userId ?? "anonymous",
      );
    } catch (reason) {
      if (reason instanceof ToolBusyError) {
        return finish(
          errorResult(
            `The server is busy: this call to ${name} waited ${formatDuration(waitLimitMs)} for a free place and was not run. Try again in a moment.`,
          ),
          "limited",
        );
      }
      return finish(errorResult(`The call to ${name} was cancelled before it started.`), "cancelled");
    } finally {
      clearTimeout(waitTimer);
      options.signal?.removeEventListener("abort", stopWaiting);
    }
    const waitedMs = Math.round(performance.now() - queuedAt);

    const timeoutMs = definition.timeoutMs ?? this.#defaultTimeoutMs;
    const controller = new AbortController();
    const onCallerAbort = () => controller.abort(options.signal?.reason);
    options.signal?.addEventListener("abort", onCallerAbort, { once: true });
    const timer = setTimeout(
      () => controller.abort(new ToolTimeoutError(`${name} timed out after ${formatDuration(timeoutMs)}`)),
      timeoutMs,
    );
    const context: ToolContext = {
      signal: controller.signal,
      callId,
      runId: request.runId,
      userId: options.userId,
      waitedMs,
      reportProgress: (progress, total, message) => {
        const update: ProgressUpdate = { progress };
        if (total !== undefined) update.total = total;
        if (message !== undefined) update.message = message;
        options.onProgress?.(update);
      },
    };

    try {
      const output = await Promise.race([
        Promise.resolve().then(() => definition.handler(args, context)),
        whenAborted(controller.signal),
      ]);
      const result = normalizeToolResult(output, this.#redact);
      if (definition.tool.outputSchema && !result.isError) {
        const check = result.structuredContent
          ? validateAgainstSchema(
              definition.tool.outputSchema,
              result.structuredContent,
              `${name} outputSchema`,
            )
          : { ok: false as const, issues: ["no structured content was returned"] };
        if (!check.ok) {
          return finish(
            errorResult(
              `${name} returned output that does not match its outputSchema: ${check.issues.join("; ")}.`,
            ),
            "invalid-output",
          );
        }
      }
      return finish(result, result.isError ? "tool-error" : "ok");
    } catch (error) {
      if (controller.signal.aborted && controller.signal.reason instanceof ToolTimeoutError) {
        return finish(
          errorResult(
            `${controller.signal.reason.message}; it was stopped. Try a smaller request or try again later.`,
          ),
          "timeout",
        );
      }
      if (options.signal?.aborted)
        return finish(errorResult(`The call to ${name} was cancelled.`), "cancelled");
      const message = error instanceof Error ? error.message : String(error);
      return finish(errorResult(`${name} failed: ${message}`), "tool-error");
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onCallerAbort);
      release();
    }
  }

  /**
   * Validate arguments against a tool's input schema the way every call is: undefined when they are valid, else the
   * message a model reads (one line per problem). The agent classifies calls with this, so both say the same thing.
   */
  checkArguments(definition: AnyToolDefinition, args: unknown): string | undefined {
    const validation = validateToolInput(definition.tool, args);
    if (validation.ok) return undefined;
    const lines = validation.issues.map((issue) => `- ${issue}`).join("\n");
    return `Invalid arguments for ${definition.tool.name}:\n${lines}\nFix the arguments and call again.`;
  }

  /** The limit of results whose tool sets none, and of `observe`. */
  get defaultMaxOutputChars(): number {
    return this.#defaultMaxOutputChars;
  }

  /** The redactor every result goes through (undefined when redaction is off): the agent uses it for model text. */
  get redactor(): Redactor | undefined {
    return this.#redact;
  }

  /**
   * What a model may read of a result: redacted, then cut to `maxChars` (default: `defaultMaxOutputChars`). Every
   * result this executor returns has been through it once; the agent sends its own observations (denials, invalid or
   * refused calls, interrupted calls) through it too, so one redactor and one limit apply to everything a model reads.
   * Redact first: cutting first would let the first half of a secret that straddles the cut through (the half no
   * longer matches).
   */
  observe(result: CallToolResult, maxChars: number = this.#defaultMaxOutputChars): CallToolResult {
    const clean = this.#redact ? redactDeep(result, this.#redact) : result;
    return truncateToolResult(clean, maxChars);
  }

  /** Redacting here too catches what the executor itself wrote (error messages echo handler errors and arguments). */
  #finalize(definition: AnyToolDefinition, result: CallToolResult): CallToolResult {
    return this.observe(result, definition.maxOutputChars ?? this.#defaultMaxOutputChars);
  }
}
