import { PassThrough } from "node:stream";
import { stripVTControlCharacters } from "node:util";
import { describe, expect, it } from "vitest";
import type { AgentEvent, AgentEventBody } from "../../agent/events.js";
import { ChatRenderer } from "./chat-renderer.js";

function draw(bodies: AgentEventBody[]): string {
  const out = new PassThrough();
  let text = "";
  out.on("data", (chunk) => {
    text += chunk;
  });
  const renderer = new ChatRenderer({ out, interactive: false });
  for (const body of bodies) renderer.render({ ...body, runId: "run_1", at: 0 } as AgentEvent);
  renderer.settle();
  return stripVTControlCharacters(text);
}

const result = (text: string, isError = false) => ({ content: [{ type: "text" as const, text }], isError });

describe("ChatRenderer", () => {
  it("streams reasoning and answer text, and shows each call, a running line, its result and duration", () => {
    const screen = draw([
      { type: "step-started", step: 1 },
      { type: "reasoning-delta", step: 1, text: "need the " },
      { type: "reasoning-delta", step: 1, text: "calculator" },
      { type: "text-delta", step: 1, text: "Let me " },
      { type: "text-delta", step: 1, text: "check." },
      { type: "call-finished", step: 1, callId: "c1", name: "calculator", arguments: { expression: "2+2" } },
      { type: "tool-started", step: 1, callId: "c1", name: "calculator" },
      {
        type: "tool-result",
        step: 1,
        callId: "c1",
        name: "calculator",
        status: "ok",
        result: result("4"),
        durationMs: 12,
      },
      { type: "step-started", step: 2 },
      { type: "text-delta", step: 2, text: "It is 4." },
      { type: "run-finished", status: "finished", stopReason: "final-answer", answer: "It is 4." },
    ]);
    expect(screen).toBe(
      [
        "need the calculator",
        "Let me check.",
        '⚙ calculator {"expression":"2+2"}',
        "  running calculator…",
        "  ✓ calculator → 4 (12 ms)",
        "It is 4.",
        "",
      ].join("\n"),
    );
  });

  it("marks failed and invalid calls, prints an answer that was not streamed, and says why a run stopped", () => {
    const screen = draw([
      { type: "step-started", step: 1 },
      { type: "call-invalid", step: 1, callId: "c1", name: "nope", message: "Unknown tool nope." },
      { type: "tool-started", step: 1, callId: "c2", name: "roll_dice" },
      {
        type: "tool-result",
        step: 1,
        callId: "c2",
        name: "roll_dice",
        status: "timeout",
        result: result("roll_dice timed out after 5 s", true),
        durationMs: 5000,
      },
      { type: "step-started", step: 2 },
      { type: "run-finished", status: "finished", stopReason: "final-answer", answer: "Done anyway." },
      { type: "error", message: "The model failed: boom" },
      { type: "run-finished", status: "stopped", stopReason: "model-error", answer: null },
    ]);
    expect(screen).toContain("✗ nope: Unknown tool nope.");
    expect(screen).toContain("  ✗ roll_dice → roll_dice timed out after 5 s [timeout] (5.0 s)");
    expect(screen).toContain("Done anyway.\n");
    expect(screen).toContain("! The model failed: boom\n(run stopped: model-error)\n");
  });
});
