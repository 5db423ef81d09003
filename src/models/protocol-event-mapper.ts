import type { ModelEvent } from "../core/language-model.js";
import type { ParserEvent } from "../protocols/types.js";

/**
 * Turns a protocol parser's events into model events, so a backend that parses its own text looks to the loop like
 * a native one. Unreadable or cut-off markup becomes a `call-error` (of the call it started, when it started one):
 * the loop sends the model a repair observation instead of the markup silently vanishing.
 */
export class ProtocolEventMapper {
  readonly #ids = new Map<number, { id: string; name: string }>();
  /** Text passed on as content. */
  shown = "";
  /** Calls ended (readable or not). */
  calls = 0;

  map(events: readonly ParserEvent[]): ModelEvent[] {
    const out: ModelEvent[] = [];
    for (const e of events) {
      switch (e.type) {
        case "content":
          this.shown += e.text;
          out.push({ type: "text-delta", text: e.text });
          break;
        case "reasoning":
          out.push({ type: "reasoning-delta", text: e.text });
          break;
        case "call-start":
          this.#ids.set(e.index, { id: e.id, name: e.name });
          out.push({ type: "call-start", id: e.id, name: e.name });
          break;
        case "call-args-delta": {
          const call = this.#ids.get(e.index);
          if (call) out.push({ type: "call-args-delta", id: call.id, text: e.text });
          break;
        }
        case "call-end": {
          this.calls += 1;
          const known = this.#ids.get(e.index);
          const id = known?.id ?? e.call.id;
          if (!known) out.push({ type: "call-start", id, name: e.call.name });
          out.push({ type: "call-end", id, name: e.call.name, arguments: e.call.arguments });
          break;
        }
        case "parse-error":
        case "truncated": {
          this.calls += 1;
          const known = e.index === undefined ? undefined : this.#ids.get(e.index);
          out.push(
            known
              ? { type: "call-error", id: known.id, name: known.name, message: e.message }
              : { type: "call-error", message: e.message },
          );
          break;
        }
      }
    }
    return out;
  }
}
