import type { ModelEvent } from "../../core/language-model.js";
import { generateCallId } from "../generate-call-id.js";

/** One streamed tool-call fragment as servers really send it (every field may be missing; arguments may be an object). */
export interface ToolCallDelta {
  index?: number | null;
  id?: string | number | null;
  type?: string | null;
  function?: { name?: string | null; arguments?: unknown } | null;
}

interface Slot {
  id: string;
  serverId: string | undefined;
  name: string;
  args: string;
  started: boolean;
}

function isCompleteJson(text: string): boolean {
  if (text.trim() === "") return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Turns OpenAI-style `tool_calls` deltas into call events, tolerating what real servers send: no `index` (Ollama,
 * sglang, mlx: keyed by id, else a new name starts a new call and a bare fragment continues the last one), `index`
 * 0 for every parallel call (Ollama: a different id, or a new name after complete arguments, starts a new call), no
 * `id` (a Mistral-safe one is made), arguments as an object (llama.cpp opt-in) and empty arguments (`{}`).
 */
export class ToolCallDeltaAccumulator {
  readonly #calls: Slot[] = [];
  readonly #byIndex = new Map<number, Slot>();

  get count(): number {
    return this.#calls.length;
  }

  feed(delta: ToolCallDelta): ModelEvent[] {
    const id =
      typeof delta.id === "string" && delta.id !== ""
        ? delta.id
        : typeof delta.id === "number"
          ? String(delta.id)
          : undefined;
    const name =
      typeof delta.function?.name === "string" && delta.function.name !== ""
        ? delta.function.name
        : undefined;
    const raw = delta.function?.arguments;
    const args =
      typeof raw === "string" ? raw : raw !== null && typeof raw === "object" ? JSON.stringify(raw) : "";
    const index = typeof delta.index === "number" ? delta.index : undefined;

    let slot: Slot | undefined;
    if (index !== undefined) slot = this.#byIndex.get(index);
    else if (id !== undefined) slot = this.#calls.find((c) => c.serverId === id);
    else if (name === undefined) slot = this.#calls.at(-1);
    if (slot) {
      const otherId = id !== undefined && slot.serverId !== undefined && id !== slot.serverId;
      const nextCall =
        name !== undefined &&
        slot.name !== "" &&
        id === undefined &&
        (name !== slot.name || isCompleteJson(slot.args));
      if (otherId || nextCall) slot = undefined;
    }
    if (!slot) {
      slot = { id: id ?? generateCallId(), serverId: id, name: "", args: "", started: false };
      this.#calls.push(slot);
      if (index !== undefined) this.#byIndex.set(index, slot);
    } else if (id !== undefined && slot.serverId === undefined && !slot.started) {
      slot.serverId = id;
      slot.id = id;
    }
    if (name !== undefined && slot.name === "") slot.name = name;

    const events: ModelEvent[] = [];
    if (!slot.started && slot.name !== "") {
      slot.started = true;
      events.push({ type: "call-start", id: slot.id, name: slot.name });
      if (slot.args !== "") events.push({ type: "call-args-delta", id: slot.id, text: slot.args });
    }
    slot.args += args;
    if (slot.started && args !== "") events.push({ type: "call-args-delta", id: slot.id, text: args });
    return events;
  }

  /** The calls, in the order they began; raw argument text is parsed by the loop (`""` counts as `{}`). */
  finish(): ModelEvent[] {
    const events: ModelEvent[] = [];
    for (const slot of this.#calls) {
      if (!slot.started) events.push({ type: "call-start", id: slot.id, name: slot.name });
      events.push({
        type: "call-end",
        id: slot.id,
        name: slot.name,
        arguments: slot.args.trim() === "" ? "{}" : slot.args,
      });
    }
    return events;
  }
}
