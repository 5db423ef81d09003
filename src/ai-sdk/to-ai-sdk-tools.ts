import type { CallToolResult } from "@modelcontextprotocol/server";
import { jsonSchema, type ModelMessage, type Tool, type ToolSet } from "ai";
import type { ApprovalPolicyConfig } from "../tools/approval-policy.js";
import { type CallGateAnswer, executeOptionsFor, gateCall } from "../tools/call-gate.js";
import { errorResult } from "../tools/normalize-tool-result.js";
import type { AnyToolDefinition } from "../tools/tool-definition.js";
import { ToolExecutor, type ToolExecutorOptions } from "../tools/tool-executor.js";
import type { ToolRegistry } from "../tools/tool-registry.js";
import { toToolResultOutput } from "./tool-result-output.js";

export interface AiSdkToolsOptions {
  /**
   * The approval policy, as `createAgent`'s `approval`: per tool (`{ write_file: "ask" }`) or a function of the call.
   * Default: `ask` for tools that require approval (destructive, or open-world and not read-only), else `always`.
   * `ask` becomes the SDK's approval request; `never` tools answer that they are not allowed, and do not run.
   */
  approval?: ApprovalPolicyConfig;
  /** On whose behalf calls run: cooldowns and rate limits count per user. */
  userId?: string;
  /**
   * A dry run: nothing changes, so no call asks for approval. Tools with side effects report what they would do;
   * read-only tools run, except those whose policy asks, which report too (as on every surface: CallGate).
   */
  dryRun?: boolean;
  /**
   * Settings of an executor of its own for these tools (concurrency, timeouts, output limit, redaction). Without them a
   * registry's tools share one executor, made at the first call: limits hold across sets made per request.
   */
  executor?: ToolExecutorOptions;
}

interface Gate {
  /** CallGate's answer for this call; `approved` when a person approved this very call. */
  check(input: unknown, approved?: boolean): CallGateAnswer;
}

/** The gate of each tool this module made, for `toAiSdkToolApproval`. */
const gates = new WeakMap<object, Gate>();

const asArguments = (input: unknown): Record<string, unknown> =>
  typeof input === "object" && input !== null && !Array.isArray(input)
    ? (input as Record<string, unknown>)
    : {};

/**
 * Whether the SDK recorded a person's approval of this very call: an approval request for `toolCallId` in an assistant
 * message, answered `approved` in a tool message — what `generateText`/`streamText` hand a tool they run after an
 * approval response.
 */
function approvedInMessages(messages: readonly ModelMessage[], toolCallId: string): boolean {
  const requests = new Set<string>();
  for (const message of messages) {
    if (message.role !== "assistant" || typeof message.content === "string") continue;
    for (const part of message.content)
      if (part.type === "tool-approval-request" && part.toolCallId === toolCallId)
        requests.add(part.approvalId);
  }
  if (requests.size === 0) return false;
  return messages.some(
    (message) =>
      message.role === "tool" &&
      message.content.some(
        (part) => part.type === "tool-approval-response" && part.approved && requests.has(part.approvalId),
      ),
  );
}

function metadataOf(definition: AnyToolDefinition) {
  const { tool } = definition;
  const annotations = tool.annotations ?? {};
  const title = tool.title ?? annotations.title;
  const server = definition.category.startsWith("mcp:") ? definition.category.slice(4) : undefined;
  return {
    ...(title !== undefined ? { title } : {}),
    metadata: {
      clientName: "toolbridge",
      toolName: tool.name,
      ...(title !== undefined ? { title } : {}),
      ...(tool.annotations ? { annotations: JSON.parse(JSON.stringify(annotations)) } : {}),
      category: definition.category,
      ...(server !== undefined ? { server } : {}),
    },
    ...(tool._meta ? { _meta: tool._meta } : {}),
  };
}

function toAiSdkTool(
  definition: AnyToolDefinition,
  executor: ToolExecutor,
  options: AiSdkToolsOptions,
): Tool {
  const name = definition.tool.name;
  // The one rule for whether a call runs (policy, a person's word, a dry run), as every other surface decides it.
  const gate: Gate = {
    check: (input, approved) =>
      gateCall({
        name,
        arguments: asArguments(input),
        tool: definition,
        approval: options.approval,
        caller: { decision: approved ? "approved" : undefined, dryRun: options.dryRun },
      }),
  };
  const tool: Tool = {
    type: "dynamic",
    ...(definition.tool.description !== undefined ? { description: definition.tool.description } : {}),
    ...metadataOf(definition),
    // The SDK checks a call's input before anything else; with the executor's own validator and wording.
    inputSchema: jsonSchema(definition.tool.inputSchema as Parameters<typeof jsonSchema>[0], {
      validate: (value) => {
        const problem = executor.checkArguments(definition, value);
        return problem === undefined
          ? { success: true, value }
          : { success: false, error: new Error(problem) };
      },
    }),
    needsApproval: (input) => gate.check(input).action === "ask",
    execute: async (input: unknown, { toolCallId, abortSignal, messages }): Promise<CallToolResult> => {
      // The policy is enforced here as well: whatever the caller's SDK approval settings, a `never` tool does not run,
      // and an `ask` tool runs only as the answer to a person's approval of this call.
      const answer = gate.check(input, approvedInMessages(messages, toolCallId));
      if (answer.action === "refuse")
        return errorResult(`${name} is not allowed here (approval policy: never); it was not run.`);
      if (answer.action === "ask")
        return errorResult(
          `${name} needs a person's approval (approval policy: ask) and none was given for this call; it was not run.`,
        );
      const outcome = await executor.execute(
        { name, arguments: input, callId: toolCallId },
        {
          ...(abortSignal ? { signal: abortSignal } : {}),
          ...(options.userId !== undefined ? { userId: options.userId } : {}),
          ...executeOptionsFor(answer, options.dryRun),
        },
      );
      return outcome.result;
    },
    toModelOutput: ({ output }) => toToolResultOutput(output as CallToolResult),
  };
  gates.set(tool, gate);
  return tool;
}

/** One executor per registry, so that sets made per request still share its limits. */
const executors = new WeakMap<ToolRegistry, ToolExecutor>();

/**
 * The executor that runs a registry's tools: the registry's shared one — cooldowns, rate limits and the concurrency
 * limit hold across every `toAiSdkTools(registry)`, as a web app calling it per request needs — or, with settings of
 * its own, a new one.
 */
function executorFor(registry: ToolRegistry, settings: ToolExecutorOptions | undefined): ToolExecutor {
  if (settings) return new ToolExecutor(registry, settings);
  let executor = executors.get(registry);
  if (!executor) executors.set(registry, (executor = new ToolExecutor(registry)));
  return executor;
}

/**
 * The registry's tools — built-ins, configured ones, mounted MCP servers' — as an AI SDK `ToolSet` for
 * `generateText`/`streamText`/agents, run by toolbridge's executor: input validated by its JSON Schema validator,
 * timeouts, concurrency, cooldowns and rate limits, results normalised to MCP `CallToolResult`s and redacted
 * (`isError` results go to the model as errors). The approval policy becomes the SDK's approval: an `ask` tool's
 * call is an approval request (`needsApproval`, or `toolApproval` with `toAiSdkToolApproval` on `ai` 7) and runs
 * after an approving response. Tools are listed as the registry has them now (call again after it changes); a tool
 * switched off or removed since does not run. MCP metadata goes where the SDK's own MCP client puts it (`title`,
 * `metadata.annotations`, `_meta`).
 */
export function toAiSdkTools(source: ToolRegistry | ToolExecutor, options: AiSdkToolsOptions = {}): ToolSet {
  const executor = source instanceof ToolExecutor ? source : executorFor(source, options.executor);
  const tools: ToolSet = {};
  for (const definition of executor.registry.definitions())
    tools[definition.tool.name] = toAiSdkTool(definition, executor, options);
  return tools;
}

/** `ai` 7's per-tool approval statuses. */
export type AiSdkToolApprovalStatus = "not-applicable" | "user-approval" | { type: "denied"; reason: string };

/**
 * For `ai` 7's `toolApproval` (`generateText({ tools, toolApproval: toAiSdkToolApproval(tools) })`): the approval
 * policy of every tool `toAiSdkTools` made, per tool — `ask` is `user-approval`, `never` is `denied` (the SDK tells
 * the model), anything else not applicable. Spread it into a map of your own for other tools.
 */
export function toAiSdkToolApproval(
  tools: ToolSet,
): Record<string, (input: unknown) => AiSdkToolApprovalStatus> {
  const out: Record<string, (input: unknown) => AiSdkToolApprovalStatus> = {};
  for (const [name, tool] of Object.entries(tools)) {
    const gate = gates.get(tool);
    if (!gate) continue;
    out[name] = (input) => {
      const answer = gate.check(input);
      if (answer.action === "ask") return "user-approval";
      if (answer.action === "refuse")
        return { type: "denied", reason: `${name} is not allowed here (approval policy: never).` };
      return "not-applicable";
    };
  }
  return out;
}
