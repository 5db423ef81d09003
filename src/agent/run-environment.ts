import type { Tool } from "@modelcontextprotocol/server";
import type { LanguageModel, ToolChoice } from "../core/language-model.js";
import type { RunStore } from "../store/store.js";
import type { ApprovalPolicyConfig } from "../tools/approval-policy.js";
import type { Redactor } from "../tools/redact-secrets.js";
import type { AnyToolDefinition } from "../tools/tool-definition.js";
import type { ToolExecutor } from "../tools/tool-executor.js";
import type { AgentEventBody } from "./events.js";
import type { TurnContext } from "./turn-tools.js";

/** What the parts of a run need from the Agent that drives it: built once per agent, read-only. */
export interface RunEnvironment {
  readonly model: LanguageModel;
  readonly store: RunStore;
  /** Runs calls, and owns what a model reads of any result: `executor.observe` redacts and caps the agent's own. */
  readonly executor: ToolExecutor;
  readonly toolChoice: ToolChoice;
  readonly approval: ApprovalPolicyConfig | undefined;
  readonly dryRun: boolean;
  /** On whose behalf tools run (cooldowns, rate limits, fair shares). */
  readonly userId: string | undefined;
  readonly redactor: Redactor | undefined;
  /** A tool this agent offers (allowlist, local-only), or undefined. */
  tool(name: string): AnyToolDefinition | undefined;
  /** The names of the tools offered, for "unknown tool" observations. */
  toolNames(): string[];
  /**
   * The MCP tool objects offered to the model: the whole catalogue, or — with a tool selection and the turn's
   * context — the tools chosen for this turn.
   */
  offeredTools(context?: TurnContext): readonly Tool[];
  /** Whether turns may offer less than the whole catalogue (then `step-started` names the tools offered). */
  readonly selectingTools: boolean;
  /** Redact anything before it is stored or shown (the model's own words included). */
  clean<T>(value: T): T;
}

/** Report one event of the run (stamped with the run id and time by the Agent). */
export type Emit = (body: AgentEventBody) => void;
