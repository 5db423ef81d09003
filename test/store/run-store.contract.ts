/**
 * The behaviour every store must have, run against each implementation (test/store/stores.test.ts), the way Hono
 * runs one test file against every router: the agent loop's guarantees (a call claimed once, batches all or nothing,
 * a step's close rolled back whole) rest on these, whatever keeps the data.
 */
import { describe, expect, it } from "vitest";
import type { Store } from "../../src/store/store.js";

const newRun = (id: string) => ({
  id,
  conversationId: `c_${id}`,
  model: "replay",
  options: { cli: { model: "replay:x" } },
  limits: { maxSteps: 3 },
  owner: "host:1",
  messages: [{ role: "user" as const, content: "hello" }],
});

const turn = (runId: string, step: number, calls: Parameters<Store["recordTurn"]>[0]["calls"]) => ({
  runId,
  conversationId: `c_${runId}`,
  step,
  message: {
    role: "assistant" as const,
    content: "",
    toolCalls: calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })),
  },
  finishReason: "tool-calls",
  calls,
  parseErrors: [],
  audit: [],
});

const pending = (id: string, position: number, args: Record<string, unknown> = {}) => ({
  id,
  position,
  name: "t",
  arguments: args,
  state: "pending" as const,
  approval: {
    policy: "ask" as const,
    decision: "pending" as const,
    decidedBy: null,
    decidedAt: null,
    reason: null,
    originalArguments: null,
  },
});

/** `skip`: why this store cannot be tested here (no server); the contract is then reported as skipped. */
export function runStoreContract(name: string, open: () => Promise<Store> | Store, skip?: string): void {
  describe.skipIf(skip !== undefined)(`${name} (RunStore contract)${skip ? ` — ${skip}` : ""}`, () => {
    it("creates runs, lists them newest first and by status, and keeps the prompt in the transcript", async () => {
      const store = await open();
      await store.createRun(newRun("r1"));
      await new Promise((resolve) => setTimeout(resolve, 2));
      await store.createRun(newRun("r2"));
      await store.updateRun("r1", { status: "paused", stopReason: "awaiting-approval", owner: null });
      expect((await store.listRuns()).map((r) => r.id)).toEqual(["r2", "r1"]);
      expect((await store.listRuns({ status: "paused" })).map((r) => r.id)).toEqual(["r1"]);
      expect(await store.getRun("r1")).toMatchObject({ status: "paused", owner: null, stepCount: 0 });
      expect(await store.getRun("nope")).toBeUndefined();
      expect(await store.listMessages("c_r1")).toEqual([{ role: "user", content: "hello" }]);
      await expect(store.createRun(newRun("r1"))).rejects.toThrow();
      await store.close();
    });

    it("keeps copies: changing an object after handing it over changes nothing stored", async () => {
      const store = await open();
      const run = newRun("r1");
      await store.createRun(run);
      run.options.cli.model = "changed";
      const args = { path: "a.txt" };
      const [record] = await store.recordTurn(turn("r1", 1, [pending("x", 0, args)]));
      args.path = "b.txt";
      if (record) record.arguments.path = "c.txt";
      expect((await store.getRun("r1"))?.options).toEqual({ cli: { model: "replay:x" } });
      expect((await store.listToolCalls("r1"))[0]?.arguments).toEqual({ path: "a.txt" });
      await store.close();
    });

    it("refuses to record a call id twice (the insert is the claim) and writes nothing of that turn", async () => {
      const store = await open();
      await store.createRun(newRun("r1"));
      await store.recordTurn(
        turn("r1", 1, [{ id: "x", position: 0, name: "t", arguments: {}, state: "executing" }]),
      );
      await expect(
        store.recordTurn(
          turn("r1", 2, [{ id: "x", position: 0, name: "t", arguments: {}, state: "executing" }]),
        ),
      ).rejects.toThrow();
      expect((await store.listSteps("r1")).map((s) => s.step)).toEqual([1]);
      expect(await store.listToolCalls("r1")).toHaveLength(1);
      expect((await store.getRun("r1"))?.stepCount).toBe(1);
      await store.close();
    });

    it("claims a batch of calls, only those still approved, each at most once", async () => {
      const store = await open();
      await store.createRun(newRun("r1"));
      const records = await store.recordTurn(
        turn("r1", 1, [
          { id: "a", position: 0, name: "t", arguments: {}, state: "approved" },
          pending("b", 1),
          { id: "c", position: 2, name: "t", arguments: { x: 1 }, state: "executing" },
        ]),
      );
      expect(records).toEqual(await store.listToolCalls("r1", 1));
      expect(records[2]).toMatchObject({ state: "executing", arguments: { x: 1 } });
      expect(records[2]?.startedAt).not.toBeNull();
      const claims = await Promise.all([
        store.claimToolCalls("r1", ["a", "b", "c"]),
        store.claimToolCalls("r1", ["a"]),
      ]);
      expect(claims.flat()).toEqual(["a"]);
      await store.close();
    });

    it("takes decisions all or nothing, keeps edited arguments and the original, and audits them", async () => {
      const store = await open();
      await store.createRun(newRun("r1"));
      await store.recordTurn(turn("r1", 1, [pending("a", 0, { n: 1 }), pending("b", 1), pending("c", 2)]));
      const denied = { content: [{ type: "text" as const, text: "denied" }], isError: true };
      // "x" does not exist: the whole batch is refused and "a" stays pending.
      await expect(
        store.decideToolCalls("r1", [
          { callId: "a", decision: "approved", by: "ann" },
          { callId: "x", decision: "approved", by: "ann" },
        ]),
      ).rejects.toThrow(/no tool call x/);
      // The same call twice in one batch: refused whole.
      await expect(
        store.decideToolCalls("r1", [
          { callId: "b", decision: "approved", by: "ann" },
          { callId: "b", decision: "denied", by: "ann", result: denied },
        ]),
      ).rejects.toThrow(/not waiting for a decision/);
      expect((await store.listToolCalls("r1")).map((c) => c.state)).toEqual([
        "pending",
        "pending",
        "pending",
      ]);

      await store.decideToolCalls("r1", [
        { callId: "a", decision: "approved", by: "ann", arguments: { n: 2 } },
        { callId: "b", decision: "denied", by: "bob", reason: "no", result: denied },
      ]);
      const [a, b, c] = await store.listToolCalls("r1");
      expect(a).toMatchObject({ state: "approved", arguments: { n: 2 } });
      expect(a?.approval).toMatchObject({
        decision: "approved",
        decidedBy: "ann",
        originalArguments: { n: 1 },
      });
      expect(b).toMatchObject({ state: "denied", outcome: "denied", result: denied });
      expect(b?.approval).toMatchObject({ decision: "denied", decidedBy: "bob", reason: "no" });
      expect(c?.state).toBe("pending");
      await expect(
        store.decideToolCalls("r1", [{ callId: "a", decision: "approved", by: "eve" }]),
      ).rejects.toThrow(/not waiting for a decision/);
      const audit = await store.listAudit("r1");
      expect(audit.map((e) => [e.actor, e.action, e.callId])).toEqual([
        ["ann", "approve-edited", "a"],
        ["bob", "deny", "b"],
      ]);
      expect(audit[0]?.detail).toEqual({ originalArguments: { n: 1 }, arguments: { n: 2 } });
      await store.close();
    });

    it("closes a step with its last result at once, and writes nothing if that result conflicts", async () => {
      const store = await open();
      await store.createRun(newRun("r1"));
      await store.recordTurn(
        turn("r1", 1, [{ id: "x", position: 0, name: "t", arguments: {}, state: "executing" }]),
      );
      const result = { content: [{ type: "text" as const, text: "ok" }] };
      const close = {
        runId: "r1",
        conversationId: "c_r1",
        step: 1,
        messages: [{ role: "tool" as const, callId: "x", name: "t", result }],
        run: { toolCallCount: 1 },
        results: [{ callId: "x", state: "done" as const, outcome: "ok", result, durationMs: 0 }],
      };
      await store.finishStep(close);
      const [call] = await store.listToolCalls("r1", 1);
      expect(call).toMatchObject({ state: "done", outcome: "ok", result });
      expect((await store.listSteps("r1"))[0]?.finished).toBe(true);
      expect((await store.getRun("r1"))?.toolCallCount).toBe(1);
      const transcript = await store.listMessages("c_r1");
      expect(transcript.at(-1)).toEqual({ role: "tool", callId: "x", name: "t", result });

      await expect(store.finishStep({ ...close, run: { toolCallCount: 9 } })).rejects.toThrow(
        /not executing/,
      );
      expect((await store.getRun("r1"))?.toolCallCount).toBe(1);
      expect(await store.listMessages("c_r1")).toHaveLength(transcript.length);
      await expect(
        store.finishToolCall("r1", "x", { state: "done", outcome: "ok", result, durationMs: 1 }),
      ).rejects.toThrow(/not executing/);
      await store.close();
    });

    it("records a final turn and the run's end together, and finds it in memory search", async () => {
      const store = await open();
      await store.createRun(newRun("r1"));
      await store.recordTurn({
        runId: "r1",
        conversationId: "c_r1",
        step: 1,
        message: { role: "assistant", content: "The capital is Paris." },
        finishReason: "stop",
        calls: [],
        parseErrors: [],
        audit: [],
        close: {
          messages: [],
          run: {
            status: "finished",
            stopReason: "final-answer",
            answer: "The capital is Paris.",
            owner: null,
          },
        },
      });
      expect(await store.getRun("r1")).toMatchObject({ status: "finished", stepCount: 1, owner: null });
      expect((await store.listSteps("r1"))[0]).toMatchObject({
        finished: true,
        text: "The capital is Paris.",
      });
      const [hit] = await store.searchMemory("paris");
      expect(hit).toMatchObject({ kind: "message", role: "assistant", conversationId: "c_r1" });
      expect(hit?.snippet).toContain("[Paris");
      await store.close();
    });

    it("claims a run only from the expected status and owner", async () => {
      const store = await open();
      await store.createRun(newRun("r1"));
      await store.updateRun("r1", { status: "paused", owner: null });
      expect(await store.claimRun("r1", "me:1", ["paused"], "someone")).toBe(false);
      expect(await store.claimRun("r1", "me:1", ["running"], null)).toBe(false);
      expect(await store.claimRun("r1", "me:1", ["paused"], null)).toBe(true);
      expect(await store.claimRun("r1", "you:2", ["paused"], null)).toBe(false);
      expect(await store.getRun("r1")).toMatchObject({ status: "running", owner: "me:1" });
      await store.close();
    });

    it("records a cancel request on a run that is not over (the first one stays), audits each, lists it, and keeps it through a claim", async () => {
      const store = await open();
      if (!store.requestCancel || !store.listCancelRequests)
        throw new Error(`${name} keeps no cancel requests: the built-in stores must`);
      await store.createRun(newRun("r1"));
      await store.createRun(newRun("r2"));
      await store.createRun(newRun("r3"));
      await store.updateRun("r3", { status: "finished", stopReason: "final-answer", owner: null });
      expect((await store.getRun("r1"))?.cancelRequest).toBeNull();

      const first = await store.requestCancel("r1", { by: "ops", reason: "wrong prompt" });
      expect(first?.cancelRequest).toMatchObject({ by: "ops", reason: "wrong prompt" });
      expect(Date.parse(first?.cancelRequest?.at ?? "")).not.toBeNaN();
      // A second request (a second click, another instance) keeps the first one's who and why.
      const second = await store.requestCancel("r1", { by: "someone else", reason: "again" });
      expect(second?.cancelRequest).toEqual(first?.cancelRequest);
      expect(second?.status).toBe("running");
      // A run that is over is answered as it is: nothing recorded, nothing audited.
      expect(await store.requestCancel("r3", { by: "ops", reason: "late" })).toMatchObject({
        status: "finished",
        cancelRequest: null,
      });
      expect(await store.requestCancel("nope", { by: "ops", reason: "x" })).toBeUndefined();

      const listed = await store.listCancelRequests(["r1", "r2", "r3", "nope"]);
      expect([...listed.keys()]).toEqual(["r1"]);
      expect(listed.get("r1")).toEqual(first?.cancelRequest);
      expect((await store.listCancelRequests([])).size).toBe(0);
      expect((await store.listAudit("r1")).map((a) => [a.actor, a.action, a.detail])).toEqual([
        ["ops", "cancel-requested", { reason: "wrong prompt" }],
        ["someone else", "cancel-requested", { reason: "again" }],
      ]);
      expect(await store.listAudit("r3")).toEqual([]);

      // Paused, then taken over by another process: the request is still there for the new driver.
      await store.updateRun("r1", { status: "paused", owner: null });
      expect(await store.claimRun("r1", "me:1", ["paused"], null)).toBe(true);
      expect((await store.getRun("r1"))?.cancelRequest).toEqual(first?.cancelRequest);
      await store.close();
    });

    it("saves notes and searches them by their words and tags, notes or messages only", async () => {
      const store = await open();
      await store.createRun(newRun("r1"));
      const note = await store.saveNote({
        title: "Parking",
        content: "The car is on level 3",
        tags: ["car"],
      });
      expect(note).toMatchObject({ title: "Parking", tags: ["car"] });
      expect((await store.searchMemory("level"))[0]).toMatchObject({
        kind: "note",
        id: note.id,
        title: "Parking",
      });
      expect((await store.searchMemory("car", { kind: "note" })).map((h) => h.kind)).toEqual(["note"]);
      expect(await store.searchMemory("hello", { kind: "note" })).toEqual([]);
      expect((await store.searchMemory("hello", { kind: "message" }))[0]).toMatchObject({ role: "user" });
      expect(await store.searchMemory(" ... ")).toEqual([]);
      await store.close();
    });
  });
}
