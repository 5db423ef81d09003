import type { ModelEvent } from "../core/language-model.js";
import { type Redactor, redactDeep } from "./redact-secrets.js";
import { StreamRedactor } from "./stream-redactor.js";

/** Call arguments as a model gave them (a JSON text or a value), with every secret in them replaced. */
function redactArguments(args: unknown, redact: Redactor): unknown {
  if (typeof args !== "string") return redactDeep(args, redact);
  // A JSON text is redacted value by value, so the result is still the same JSON with secrets replaced.
  try {
    return JSON.stringify(redactDeep(JSON.parse(args) as unknown, redact));
  } catch {
    return redact(args);
  }
}

/**
 * A model's turn with every secret redacted, for a surface that passes the model's own words on as they stream (the
 * OpenAI-compatible and Anthropic-compatible APIs). Text, reasoning and each call's argument deltas keep a carry
 * (StreamRedactor), so a secret split over two deltas is still caught; what is held back goes out before anything that
 * must follow it (a call, the end), so the order of the turn is kept. A call's complete arguments and a parse error
 * (which may quote the model) are redacted whole. The runs, their events, the store and the CLI get the same redactor
 * through the agent (`turn-stream.ts`, `run-step.ts`).
 */
export async function* redactModelStream(
  events: AsyncIterable<ModelEvent>,
  redact: Redactor,
): AsyncGenerator<ModelEvent> {
  const text = new StreamRedactor(redact);
  const reasoning = new StreamRedactor(redact);
  const args = new Map<string | undefined, StreamRedactor>();
  function* flushTextAndReasoning(): Generator<ModelEvent> {
    const thought = reasoning.flush();
    if (thought) yield { type: "reasoning-delta", text: thought };
    const said = text.flush();
    if (said) yield { type: "text-delta", text: said };
  }
  function* flushArgs(id: string | undefined): Generator<ModelEvent> {
    const stream = args.get(id);
    if (!stream) return;
    args.delete(id);
    const rest = stream.flush();
    if (rest) yield { type: "call-args-delta", ...(id === undefined ? {} : { id }), text: rest };
  }
  try {
    for await (const event of events) {
      switch (event.type) {
        case "text-delta": {
          const safe = text.push(event.text);
          if (safe) yield { type: "text-delta", text: safe };
          break;
        }
        case "reasoning-delta": {
          const safe = reasoning.push(event.text);
          if (safe) yield { type: "reasoning-delta", text: safe };
          break;
        }
        case "call-start":
          yield* flushTextAndReasoning();
          yield event;
          break;
        case "call-args-delta": {
          let stream = args.get(event.id);
          if (!stream) args.set(event.id, (stream = new StreamRedactor(redact)));
          const safe = stream.push(event.text);
          if (safe) yield { ...event, text: safe };
          break;
        }
        case "call-end":
          yield* flushTextAndReasoning();
          yield* flushArgs(event.id);
          yield { ...event, arguments: redactArguments(event.arguments, redact) };
          break;
        case "call-error":
          yield* flushTextAndReasoning();
          yield* flushArgs(event.id);
          yield { ...event, message: redact(event.message) };
          break;
        case "finish":
          yield* flushTextAndReasoning();
          for (const id of [...args.keys()]) yield* flushArgs(id);
          yield event;
          break;
      }
    }
  } catch (error) {
    // A model that fails mid-turn: what it said before the failure is still shown (redacted), then the error.
    yield* flushTextAndReasoning();
    throw error;
  }
  // A stream that ended without its finish event still shows what it said.
  yield* flushTextAndReasoning();
  for (const id of [...args.keys()]) yield* flushArgs(id);
}
