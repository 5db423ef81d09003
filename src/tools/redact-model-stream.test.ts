import { describe, expect, it } from "vitest";
import type { ModelEvent } from "../core/language-model.js";
import { redactModelStream } from "./redact-model-stream.js";
import { createRedactor, REDACTED } from "./redact-secrets.js";

const SECRET = "Zq-secret-value-42";
const redact = createRedactor({ env: {}, values: [SECRET] });

async function run(events: ModelEvent[]): Promise<ModelEvent[]> {
  async function* source() {
    yield* events;
  }
  const out: ModelEvent[] = [];
  for await (const event of redactModelStream(source(), redact)) out.push(event);
  return out;
}

const pieces = (text: string, size: number) =>
  Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size));

describe("redactModelStream", () => {
  it("catches a secret split across deltas of text, reasoning and arguments, and keeps the turn's order", async () => {
    const said = `I will use ${SECRET} now.`;
    const args = JSON.stringify({ key: SECRET, note: `with ${SECRET}` });
    const out = await run([
      ...pieces(said, 3).map((text): ModelEvent => ({ type: "reasoning-delta", text })),
      ...pieces(said, 4).map((text): ModelEvent => ({ type: "text-delta", text })),
      { type: "call-start", id: "a", name: "use" },
      ...pieces(args, 5).map((text): ModelEvent => ({ type: "call-args-delta", id: "a", text })),
      { type: "call-end", id: "a", name: "use", arguments: args },
      { type: "call-end", id: "b", name: "use", arguments: { nested: [SECRET] } },
      { type: "call-error", message: `could not read ${SECRET}` },
      { type: "finish", reason: "tool-calls" },
    ]);
    expect(JSON.stringify(out)).not.toContain(SECRET.slice(0, 10));
    const joined = (type: ModelEvent["type"]) =>
      out
        .filter((e) => e.type === type)
        .map((e) => (e as { text: string }).text)
        .join("");
    expect(joined("reasoning-delta")).toBe(`I will use ${REDACTED} now.`);
    expect(joined("text-delta")).toBe(`I will use ${REDACTED} now.`);
    expect(JSON.parse(joined("call-args-delta"))).toEqual({ key: REDACTED, note: `with ${REDACTED}` });
    expect(out.map((e) => e.type)).toEqual([
      "reasoning-delta",
      "text-delta",
      "call-start",
      "call-args-delta",
      "call-end",
      "call-end",
      "call-error",
      "finish",
    ]);
    expect(
      out.filter((e) => e.type === "call-end").map((e) => (e as { arguments: unknown }).arguments),
    ).toEqual([JSON.stringify({ key: REDACTED, note: `with ${REDACTED}` }), { nested: [REDACTED] }]);
    expect(out.find((e) => e.type === "call-error")).toMatchObject({ message: `could not read ${REDACTED}` });
  });

  it("redacts undecodable argument text as text, and shows held-back text of a stream that ends without finish", async () => {
    const out = await run([
      { type: "call-end", name: "x", arguments: `{"broken": "${SECRET}` },
      { type: "text-delta", text: "short tail" },
    ]);
    expect(out).toEqual([
      { type: "call-end", name: "x", arguments: `{"broken": "${REDACTED}` },
      { type: "text-delta", text: "short tail" },
    ]);
  });
});
