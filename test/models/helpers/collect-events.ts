import type { LanguageModel, ModelEvent, ModelRequest } from "../../../src/core/language-model.js";

export async function collectEvents(
  model: LanguageModel,
  request: Partial<ModelRequest> & Pick<ModelRequest, "messages">,
): Promise<ModelEvent[]> {
  const events: ModelEvent[] = [];
  for await (const e of model.stream({
    tools: [],
    toolChoice: "auto",
    signal: new AbortController().signal,
    ...request,
  }))
    events.push(e);
  return events;
}

export function callsOf(events: readonly ModelEvent[]) {
  return events
    .filter((e): e is Extract<ModelEvent, { type: "call-end" }> => e.type === "call-end")
    .map((e) => ({
      id: e.id,
      name: e.name,
      arguments: typeof e.arguments === "string" ? JSON.parse(e.arguments) : e.arguments,
    }));
}

export function textOf(events: readonly ModelEvent[]): string {
  return events.map((e) => (e.type === "text-delta" ? e.text : "")).join("");
}
