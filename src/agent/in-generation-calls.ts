import type { ExecuteCallOutcome, ModelCallRequest } from "../core/language-model.js";
import type { AnyToolDefinition } from "../tools/tool-definition.js";
import { classifyCalls, settlesAtOnce } from "./classify-calls.js";
import type { CollectedCall, CollectedTurn } from "./collect-model-turn.js";
import { completeStep } from "./complete-step.js";
import type { Emit, RunEnvironment } from "./run-environment.js";
import type { RunSession } from "./run-session.js";
import { StopRun } from "./stop-reason.js";
import type { TurnStream } from "./turn-stream.js";

/** The turn being generated: its step moves on by one for every call settled while the model generates. */
export interface GeneratingTurn {
  step: number;
  /** Text and reasoning since the last call settled (earlier text was recorded with that call's step). */
  text: string;
  reasoning: string;
  /** True once the model handed over a call mid-generation. */
  used: boolean;
  /** Calls handed over that could not be settled at once: they belong to the turn's end. */
  deferred: CollectedCall[];
  /** Set when a settled call ended the run (a limit, a failure): the turn stops there. */
  stop: StopRun | undefined;
  /** The calls handed over, settled one after another in the order the model made them. */
  chain: Promise<unknown>;
}

/**
 * The loop's side of `ModelRequest.executeCall`, for backends that run tool handlers while generating
 * (node-llama-cpp's function calling). Each call that needs no decision is settled as a step of its own — recorded,
 * run at most once, observed, with the same machinery as a streamed call — and its observation goes back into the
 * generation; the first that needs a decision (or hits a limit) is deferred, and so is every call after it: the model
 * stops and they are classified with the turn's end, like streamed calls.
 */
export function createInGenerationCalls(input: {
  env: RunEnvironment;
  session: RunSession;
  turn: GeneratingTurn;
  newId: (preferred?: string) => string;
  stream: TurnStream;
  signal: AbortSignal;
  emit: Emit;
}): (call: ModelCallRequest) => Promise<ExecuteCallOutcome> {
  const { env, session, turn, emit } = input;
  const settle = async (call: ModelCallRequest): Promise<ExecuteCallOutcome> => {
    turn.used = true;
    input.stream.flush();
    const id = input.newId(call.id);
    emit({ type: "call-started", step: turn.step, callId: id, name: call.name });
    const collected: CollectedCall = { id, name: call.name, arguments: env.clean(call.arguments) };
    const budget = session.limits.maxToolCalls - session.run.toolCallCount;
    if (
      turn.stop ||
      turn.deferred.length > 0 ||
      input.signal.aborted ||
      turn.step >= session.limits.maxSteps ||
      !settlesAtOnce({ ...classifyInput(), budget, call: collected })
    ) {
      turn.deferred.push(collected);
      return { status: "pending" };
    }
    const single: CollectedTurn = {
      text: env.clean(turn.text.trim()),
      reasoning: env.clean(turn.reasoning),
      calls: [collected],
      parseErrors: [],
      finishReason: "tool-calls",
    };
    const classified = classifyCalls({
      ...classifyInput(),
      runId: session.id,
      step: turn.step,
      calls: single.calls,
      budget,
      observe: (result) => env.executor.observe(result),
    });
    for (const event of classified.events) emit(event);
    const claimed = await session.recordTurn(env.store, {
      step: turn.step,
      message: {
        role: "assistant",
        content: single.text,
        toolCalls: [collected],
        ...(single.reasoning ? { reasoning: single.reasoning } : {}),
      },
      finishReason: "tool-calls",
      calls: classified.calls,
      parseErrors: [],
      audit: classified.audit,
    });
    const outcome = await completeStep({
      env,
      session,
      step: turn.step,
      parseErrors: [],
      signal: input.signal,
      emit,
      turn: single,
      claimed,
    });
    const result = session.calls.find((c) => c.id === id)?.result;
    if (outcome !== "continue" || !result) {
      turn.stop = outcome instanceof StopRun ? outcome : new StopRun("aborted");
      return { status: "pending" };
    }
    turn.step += 1;
    turn.text = "";
    turn.reasoning = "";
    emit({ type: "step-started", step: turn.step });
    return { status: "done", result };
  };
  const classifyInput = () => ({
    maxToolCalls: session.limits.maxToolCalls,
    tool: (name: string) => env.tool(name),
    toolNames: () => env.toolNames(),
    approval: env.approval,
    dryRun: env.dryRun,
    checkArguments: (tool: AnyToolDefinition, args: Record<string, unknown>) =>
      env.executor.checkArguments(tool, args),
  });
  return (call) => {
    const next = turn.chain.then(() => settle(call));
    turn.chain = next.catch(() => {});
    return next;
  };
}
