/**
 * What every LanguageModel does, run against each backend (test/models/language-models.test.ts), the way Hono runs
 * one test file against every router: the agent loop, the server and every view of a run rely on these event streams
 * looking the same whatever produced them.
 *
 * Scenarios a harness cannot drive a backend into are listed with the reason instead of being run.
 */
import type { Tool } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import type { LanguageModel, ModelEvent, ModelRequest, ToolChoice } from "../../src/core/language-model.js";
import { decodeCallArguments } from "../../src/protocols/decode-call-arguments.js";
import { validateToolInput } from "../../src/tools/validate-tool-input.js";

export type Scenario = "text" | "one-call" | "parallel-calls" | "required" | "named" | "none" | "abort";

export interface ModelHarness {
  /** A model set up for this scenario (a script, a recorded stream, a grammar-bound local model). */
  model(scenario: Scenario): Promise<LanguageModel>;
  /** Scenarios this backend cannot be driven into here, with the reason. */
  cannot?: Partial<Record<Scenario, string>>;
}

export const CONTRACT_TOOLS: Tool[] = [
  {
    name: "add",
    description: "Add two numbers.",
    inputSchema: {
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
    },
  },
  { name: "noargs", description: "Takes no arguments.", inputSchema: { type: "object", properties: {} } },
];

const CHOICE: Record<Scenario, ToolChoice> = {
  text: "none",
  "one-call": { name: "add" },
  "parallel-calls": "required",
  required: "required",
  named: { name: "noargs" },
  none: "none",
  abort: "none",
};

async function collect(model: LanguageModel, scenario: Scenario, signal = new AbortController().signal) {
  const request: ModelRequest = {
    messages: [
      { role: "system", content: "You can use tools." },
      { role: "user", content: "Add 2 and 3." },
    ],
    tools: CONTRACT_TOOLS,
    toolChoice: CHOICE[scenario],
    signal,
  };
  const events: ModelEvent[] = [];
  for await (const event of model.stream(request)) events.push(event);
  return events;
}

/** What holds for every stream: one finish, last; calls started before they stream or end; arguments an object. */
function checkStream(events: readonly ModelEvent[]) {
  const finishes = events.filter((e) => e.type === "finish");
  expect(finishes).toHaveLength(1);
  expect(events.at(-1)?.type).toBe("finish");
  const started = new Set<string>();
  const calls: Array<{ id: string; name: string; arguments: Record<string, unknown> }> = [];
  for (const event of events) {
    if (event.type === "call-start" && event.id !== undefined) started.add(event.id);
    if (event.type === "call-args-delta" && event.id !== undefined) expect(started).toContain(event.id);
    if (event.type === "call-end") {
      if (event.id !== undefined) expect(started).toContain(event.id);
      const decoded = decodeCallArguments(event.arguments);
      expect(decoded.ok, JSON.stringify(event)).toBe(true);
      if (decoded.ok) calls.push({ id: event.id ?? "", name: event.name, arguments: decoded.value });
    }
    expect(event.type).not.toBe("call-error");
  }
  const text = events.map((e) => (e.type === "text-delta" ? e.text : "")).join("");
  const finish = finishes[0] as Extract<ModelEvent, { type: "finish" }>;
  return { calls, text, finish };
}

function expectValid(call: { name: string; arguments: Record<string, unknown> }) {
  const tool = CONTRACT_TOOLS.find((t) => t.name === call.name);
  expect(tool, `a call to an offered tool, got ${call.name}`).toBeDefined();
  const check = validateToolInput(tool as Tool, call.arguments);
  expect(check.ok, JSON.stringify(check)).toBe(true);
}

export function languageModelContract(name: string, harness: ModelHarness): void {
  const can = (scenario: Scenario) => harness.cannot?.[scenario] === undefined;
  describe(`${name} (LanguageModel contract)`, () => {
    if (can("text"))
      it("streams text, ending with one finish and no call", async () => {
        const { calls, text, finish } = checkStream(await collect(await harness.model("text"), "text"));
        expect(text.length).toBeGreaterThan(0);
        expect(calls).toEqual([]);
        expect(["stop", "length"]).toContain(finish.reason);
      });

    if (can("one-call"))
      it("makes one call whose arguments fit the tool's schema, finishing with tool-calls", async () => {
        const { calls, finish } = checkStream(await collect(await harness.model("one-call"), "one-call"));
        expect(calls).toHaveLength(1);
        expect(calls[0]?.name).toBe("add");
        for (const call of calls) expectValid(call);
        expect(finish.reason).toBe("tool-calls");
      });

    if (can("parallel-calls"))
      it("makes parallel calls, each with its own id (where the backend names them)", async () => {
        const { calls, finish } = checkStream(
          await collect(await harness.model("parallel-calls"), "parallel-calls"),
        );
        expect(calls.length).toBeGreaterThanOrEqual(2);
        for (const call of calls) expectValid(call);
        const ids = calls.map((c) => c.id).filter((id) => id !== "");
        expect(new Set(ids).size).toBe(ids.length);
        expect(finish.reason).toBe("tool-calls");
      });

    if (can("required"))
      it("toolChoice required: at least one call", async () => {
        const { calls } = checkStream(await collect(await harness.model("required"), "required"));
        expect(calls.length).toBeGreaterThanOrEqual(1);
        for (const call of calls) expectValid(call);
      });

    if (can("named"))
      it("toolChoice {name}: calls that tool", async () => {
        const { calls } = checkStream(await collect(await harness.model("named"), "named"));
        expect(calls.length).toBeGreaterThanOrEqual(1);
        expect(calls.map((c) => c.name)).toEqual(calls.map(() => "noargs"));
      });

    if (can("none"))
      it("toolChoice none: no call", async () => {
        const { calls, finish } = checkStream(await collect(await harness.model("none"), "none"));
        expect(calls).toEqual([]);
        expect(finish.reason).not.toBe("tool-calls");
      });

    if (can("abort"))
      it("stops when the request's signal aborts, and sends nothing after", async () => {
        const model = await harness.model("abort");
        const controller = new AbortController();
        const seen: ModelEvent[] = [];
        const started = Date.now();
        let failure: unknown;
        try {
          for await (const event of model.stream({
            messages: [{ role: "user", content: "Tell me a long story." }],
            tools: CONTRACT_TOOLS,
            toolChoice: "none",
            signal: controller.signal,
          })) {
            seen.push(event);
            if (seen.length === 1) controller.abort(new Error("stop now"));
            if (seen.length > 50) break;
          }
        } catch (error) {
          failure = error;
        }
        // Either the stream ends quietly or it rejects with the abort; it never runs on.
        if (failure !== undefined) expect(String(failure)).toMatch(/stop now|abort/i);
        expect(seen.length).toBeLessThan(50);
        expect(Date.now() - started).toBeLessThan(15_000);
      });
  });
}
