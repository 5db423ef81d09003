import type { AgentMessage } from "../core/agent-message.js";
import type { ModelEvent, ToolChoice } from "../core/language-model.js";

/** The user message that asks again when a forced tool choice was answered without a call. */
export function forcedChoiceNudge(choice: ToolChoice): string {
  if (typeof choice === "object")
    return `You must call the tool "${choice.name}" now. Reply with that tool call only, in the required format.`;
  return "You must call one of the tools now. Reply with a tool call only, in the required format.";
}

function qualifies(choice: ToolChoice, events: readonly ModelEvent[]): boolean {
  const calls = events.filter((e): e is Extract<ModelEvent, { type: "call-end" }> => e.type === "call-end");
  if (typeof choice === "object") return calls.some((c) => c.name === choice.name || c.name === "");
  return calls.length > 0;
}

/**
 * Makes `required` and `{ name }` mean "the turn contains that call" on servers that do not enforce it (vLLM ignores
 * both, text models just answer). A forced turn is buffered; when it has no qualifying call the answer is put into
 * the history with a nudge and the model is asked again, at most `maxRetries` times, then the last answer stands
 * (the loop treats it as a final answer). `none` drops any call a server returns anyway. `auto` streams untouched.
 */
export async function* enforceToolChoice(
  choice: ToolChoice,
  maxRetries: number,
  attempt: (extraMessages: readonly AgentMessage[]) => AsyncIterable<ModelEvent>,
): AsyncIterable<ModelEvent> {
  if (choice === "auto") {
    yield* attempt([]);
    return;
  }
  if (choice === "none") {
    for await (const event of attempt([])) {
      if (event.type === "call-start" || event.type === "call-args-delta" || event.type === "call-end")
        continue;
      yield event.type === "finish" && event.reason === "tool-calls" ? { ...event, reason: "stop" } : event;
    }
    return;
  }
  const extra: AgentMessage[] = [];
  for (let round = 0; ; round++) {
    const events: ModelEvent[] = [];
    for await (const event of attempt(extra)) events.push(event);
    if (qualifies(choice, events) || round >= maxRetries) {
      yield* events;
      return;
    }
    const text = events.map((e) => (e.type === "text-delta" ? e.text : "")).join("");
    extra.push({ role: "assistant", content: text }, { role: "user", content: forcedChoiceNudge(choice) });
  }
}
