import type { AssistantMessage } from "../core/agent-message.js";
import { classifyCalls } from "./classify-calls.js";
import { type CollectedTurn, collectModelTurn } from "./collect-model-turn.js";
import { completeStep, type StepOutcome } from "./complete-step.js";
import { createInGenerationCalls, type GeneratingTurn } from "./in-generation-calls.js";
import type { Emit, RunEnvironment } from "./run-environment.js";
import type { RunSession } from "./run-session.js";
import { type RunEndPatch, runEndPatch, StopRun, stopReasonOf } from "./stop-reason.js";
import { createTurnStream } from "./turn-stream.js";

/** How a step ended: go on, paused for decisions, the run must stop, or the model answered (already committed). */
export type StepResult = StepOutcome | { answered: RunEndPatch };

/**
 * One step: ask the model (with the transcript so far and the tools offered), record its turn in one transaction —
 * with the run's end when it is a final answer — and bring the step to its end (run the calls, or pause for
 * decisions). The step's own timeout and the run's signals reach the model through `signal`.
 */
export async function runStep(input: {
  env: RunEnvironment;
  session: RunSession;
  signal: AbortSignal;
  emit: Emit;
}): Promise<StepResult> {
  const { env, session, emit, signal } = input;
  const generating: GeneratingTurn = {
    step: session.run.stepCount + 1,
    text: "",
    reasoning: "",
    used: false,
    deferred: [],
    stop: undefined,
    chain: Promise.resolve(),
  };
  // Copies: the transcript grows while the model may still hold this request.
  const tools = env
    .offeredTools({ messages: session.messages, called: [...new Set(session.calls.map((c) => c.name))] })
    .slice();
  emit(
    env.selectingTools
      ? { type: "step-started", step: generating.step, tools: tools.map((t) => t.name) }
      : { type: "step-started", step: generating.step },
  );
  const newId = session.callIds(() => generating.step);
  const stream = createTurnStream({ emit, step: () => generating.step, redactor: env.redactor });
  const executeCall = createInGenerationCalls({
    env,
    session,
    turn: generating,
    newId,
    stream,
    signal,
    emit,
  });
  let turn: CollectedTurn;
  try {
    turn = await collectModelTurn(
      env.model,
      {
        // Copies: the transcript grows while the model may still hold this request.
        messages: session.messages.slice(),
        tools,
        toolChoice: env.toolChoice,
        signal,
        executeCall,
      },
      {
        onText: (text) => {
          generating.text += text;
          stream.text(text);
        },
        onReasoning: (text) => {
          generating.reasoning += text;
          stream.reasoning(text);
        },
        onCallStart: (callId, name) => stream.callStarted(callId, name),
        onCallArgsDelta: (callId, text) => stream.callArgs(callId, text),
        newId,
      },
    );
  } catch (error) {
    await generating.chain;
    stream.flush();
    if (signal.aborted) return new StopRun(stopReasonOf(signal));
    const message = error instanceof Error ? error.message : String(error);
    return new StopRun("model-error", `The model failed: ${message}`);
  }
  await generating.chain;
  stream.flush();
  if (generating.stop) return generating.stop;
  if (generating.used) {
    // Earlier parts of the generation were recorded with their own steps; this step holds the rest.
    turn.text = generating.text.trim();
    turn.reasoning = generating.reasoning;
    turn.calls.push(...generating.deferred);
  }
  // The whole turn (text, reasoning, arguments, parse errors quoting the model) is redacted once, before it is
  // recorded: what is stored, indexed, run and shown is the redacted turn.
  turn = env.clean(turn);
  const step = generating.step;

  const classified = classifyCalls({
    runId: session.id,
    step,
    calls: turn.calls,
    budget: session.limits.maxToolCalls - session.run.toolCallCount,
    maxToolCalls: session.limits.maxToolCalls,
    tool: (name) => env.tool(name),
    toolNames: () => env.toolNames(),
    approval: env.approval,
    dryRun: env.dryRun,
    checkArguments: (tool, args) => env.executor.checkArguments(tool, args),
    observe: (result) => env.executor.observe(result),
  });
  for (const event of classified.events) emit(event);
  const message: AssistantMessage = { role: "assistant", content: turn.text };
  if (turn.reasoning) message.reasoning = turn.reasoning;
  if (turn.calls.length)
    message.toolCalls = turn.calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments }));
  const record = {
    step,
    message,
    finishReason: turn.finishReason,
    calls: classified.calls,
    parseErrors: turn.parseErrors,
    audit: classified.audit,
  };

  if (turn.calls.length === 0 && turn.parseErrors.length === 0) {
    // A final answer: the turn, the step's end and the run's end are one transaction.
    const patch = runEndPatch({
      reason: turn.finishReason === "length" ? "length" : "final-answer",
      answer: turn.text,
      activeMs: session.activeMs(),
    });
    await session.recordTurn(env.store, {
      ...record,
      close: { messages: [], run: { consecutiveFailures: 0, ...patch } },
    });
    emit({
      type: "step-finished",
      step,
      finishReason: turn.finishReason,
      ...(turn.usage ? { usage: turn.usage } : {}),
      toolCalls: 0,
    });
    return { answered: patch };
  }
  const claimed = await session.recordTurn(env.store, record);
  if (classified.pending.length) emit({ type: "approval-requested", step, calls: classified.pending });
  const outcome = await completeStep({
    env,
    session,
    step,
    parseErrors: turn.parseErrors,
    signal,
    emit,
    turn,
    claimed,
  });
  if (outcome === "continue" && signal.aborted) return new StopRun(stopReasonOf(signal));
  return outcome;
}
