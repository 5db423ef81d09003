import { readFileSync } from "node:fs";
import type { LanguageModel, ModelEvent, ModelRequest } from "../core/language-model.js";
import { ToolbridgeError } from "../core/toolbridge-error.js";
import type { ToolCallProtocol } from "../protocols/protocol.js";
import { TextCallReader } from "./text-call-reader.js";

/** One scripted model turn: text the model "says" (parsed by the model's `protocol`, if any), native calls, or both. */
export interface ReplayTurn {
  text?: string;
  reasoning?: string;
  calls?: Array<{ id?: string; name: string; arguments?: unknown }>;
}

export class ReplayError extends ToolbridgeError {
  override name = "ReplayError";
}

export interface ReplayModelOptions {
  /** Shown in traces and run records. Default `replay`. */
  id?: string;
  /** Split text into deltas of this many characters, to exercise streaming parsers. Default: one delta. */
  chunkSize?: number;
  /**
   * Read calls out of the turns' text with this protocol, as a text-only backend does — so a saved transcript of a
   * text model (malformed calls included) replays through the same parser. Without it, text is only text.
   */
  protocol?: Pick<ToolCallProtocol, "id" | "createParser">;
}

function checkTurn(value: unknown, where: string): ReplayTurn {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new ReplayError(
      `${where}: a turn must be an object like {"text": "..."} or {"calls": [{"name": "...", "arguments": {}}]}.`,
    );
  }
  const turn = value as Record<string, unknown>;
  if (turn.text !== undefined && typeof turn.text !== "string")
    throw new ReplayError(`${where}: "text" must be a string.`);
  if (turn.calls !== undefined) {
    if (!Array.isArray(turn.calls)) throw new ReplayError(`${where}: "calls" must be an array.`);
    for (const [i, call] of turn.calls.entries()) {
      if (
        call === null ||
        typeof call !== "object" ||
        typeof (call as { name?: unknown }).name !== "string"
      ) {
        throw new ReplayError(`${where}: calls[${i}] needs a string "name".`);
      }
    }
  }
  if (turn.text === undefined && turn.calls === undefined) {
    throw new ReplayError(`${where}: a turn needs "text" or "calls".`);
  }
  return turn as ReplayTurn;
}

/** Read turns from a JSONL file: one JSON object per model turn; blank lines and `//` comment lines are skipped. */
export function loadReplayTurns(file: string): ReplayTurn[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new ReplayError(`Cannot read replay file ${file}: ${(error as Error).message}`);
  }
  const turns: ReplayTurn[] = [];
  for (const [i, line] of text.split("\n").entries()) {
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith("//")) continue;
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch (error) {
      throw new ReplayError(`${file}:${i + 1} is not valid JSON: ${(error as Error).message}`);
    }
    turns.push(checkTurn(value, `${file}:${i + 1}`));
  }
  return turns;
}

/**
 * A scripted model for tests and for replaying saved traces. The turn it plays is the number of assistant messages
 * already in the request, so a run resumed in a new process continues at the right turn without any state here.
 */
export function createReplayModel(
  turns: readonly ReplayTurn[],
  options: ReplayModelOptions = {},
): LanguageModel {
  const checked = turns.map((turn, i) => checkTurn(turn, `turn ${i + 1}`));
  const chunkSize = options.chunkSize;
  return {
    id: options.id ?? "replay",
    async *stream(request: ModelRequest): AsyncIterable<ModelEvent> {
      let index = 0;
      for (const message of request.messages) if (message.role === "assistant") index += 1;
      const turn = checked[index];
      if (!turn) {
        throw new ReplayError(
          `The replay script has ${checked.length} turn(s) and the run asked for turn ${index + 1}; add a final {"text": "..."} turn.`,
        );
      }
      if (turn.reasoning) yield { type: "reasoning-delta", text: turn.reasoning };
      if (turn.text) {
        const size = chunkSize && chunkSize > 0 ? chunkSize : turn.text.length;
        const reader =
          options.protocol &&
          new TextCallReader({
            protocol: options.protocol,
            tools: request.tools,
            toolChoice: request.toolChoice,
          });
        for (let at = 0; at < turn.text.length; at += size) {
          // A model stops when its request is cancelled, between any two pieces it streams.
          request.signal.throwIfAborted();
          const text = turn.text.slice(at, at + size);
          if (reader) yield* reader.push(text);
          else yield { type: "text-delta", text };
        }
        if (reader) {
          yield* reader.end();
          if (reader.calls > 0 && !turn.calls?.length) {
            yield { type: "finish", reason: "tool-calls" };
            return;
          }
        }
      }
      for (const call of turn.calls ?? []) {
        const args = call.arguments ?? {};
        yield call.id === undefined
          ? { type: "call-start", name: call.name }
          : { type: "call-start", id: call.id, name: call.name };
        yield {
          type: "call-end",
          ...(call.id === undefined ? {} : { id: call.id }),
          name: call.name,
          arguments: args,
        };
      }
      yield { type: "finish", reason: turn.calls?.length ? "tool-calls" : "stop" };
    },
  };
}

/** `replay:<file.jsonl>` → a replay model over that file. */
export function createReplayModelFromFile(file: string, options: ReplayModelOptions = {}): LanguageModel {
  return createReplayModel(loadReplayTurns(file), { id: `replay:${file}`, ...options });
}
