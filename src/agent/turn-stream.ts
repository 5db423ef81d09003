import type { Redactor } from "../tools/redact-secrets.js";
import { StreamRedactor } from "../tools/stream-redactor.js";
import type { Emit } from "./run-environment.js";

/**
 * The live events of one model turn — text, reasoning and call-argument deltas — redacted as they stream: each stream
 * keeps a carry (StreamRedactor), so a secret split across two deltas is still caught. Held-back text is flushed before
 * anything that must follow it (a call starting, the turn's end).
 */
export interface TurnStream {
  text(text: string): void;
  reasoning(text: string): void;
  callStarted(callId: string, name: string): void;
  callArgs(callId: string, text: string): void;
  flush(): void;
}

export function createTurnStream(input: {
  emit: Emit;
  step: () => number;
  redactor: Redactor | undefined;
}): TurnStream {
  const { emit, redactor } = input;
  const text = redactor && new StreamRedactor(redactor);
  const reasoning = redactor && new StreamRedactor(redactor);
  const args = new Map<string, StreamRedactor>();
  const flush = () => {
    const step = input.step();
    const reasoningRest = reasoning?.flush();
    if (reasoningRest) emit({ type: "reasoning-delta", step, text: reasoningRest });
    const textRest = text?.flush();
    if (textRest) emit({ type: "text-delta", step, text: textRest });
    for (const [callId, stream] of args) {
      const rest = stream.flush();
      if (rest) emit({ type: "call-args-delta", step, callId, text: rest });
    }
  };
  return {
    text(piece) {
      const safe = text ? text.push(piece) : piece;
      if (safe) emit({ type: "text-delta", step: input.step(), text: safe });
    },
    reasoning(piece) {
      const safe = reasoning ? reasoning.push(piece) : piece;
      if (safe) emit({ type: "reasoning-delta", step: input.step(), text: safe });
    },
    callStarted(callId, name) {
      flush();
      emit({ type: "call-started", step: input.step(), callId, name });
    },
    callArgs(callId, piece) {
      let stream = args.get(callId);
      if (!stream && redactor) args.set(callId, (stream = new StreamRedactor(redactor)));
      const safe = stream ? stream.push(piece) : piece;
      if (safe) emit({ type: "call-args-delta", step: input.step(), callId, text: safe });
    },
    flush,
  };
}
