import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { defineTool } from "./define-tool.js";
import { ToolNotFoundError } from "./errors.js";
import { ToolExecutor } from "./tool-executor.js";
import { ToolRegistry } from "./tool-registry.js";

function setup(
  tools: Parameters<ToolRegistry["register"]>[0][],
  options: ConstructorParameters<typeof ToolExecutor>[1] = {},
) {
  const registry = new ToolRegistry();
  registry.registerAll(tools);
  return { registry, executor: new ToolExecutor(registry, { redact: false, ...options }) };
}

const echo = defineTool({
  name: "echo",
  description: "Echo text back",
  inputSchema: z.object({ text: z.string() }),
  handler: ({ text }) => text,
});

describe("ToolExecutor", () => {
  it("ends a hanging handler at its timeout with an isError result and fires its AbortSignal", async () => {
    let signalFired = false;
    const hang = defineTool({
      name: "hang",
      inputSchema: { type: "object" },
      timeoutMs: 100,
      handler: (_args, { signal }) =>
        new Promise(() => {
          signal.addEventListener("abort", () => {
            signalFired = true;
          });
        }),
    });
    const { executor } = setup([hang]);
    const started = Date.now();
    const outcome = await executor.execute({ name: "hang", arguments: {} });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(outcome.status).toBe("timeout");
    expect(outcome.result.isError).toBe(true);
    expect(outcome.result.content[0]).toMatchObject({
      type: "text",
      text: expect.stringContaining("timed out after 100ms"),
    });
    expect(signalFired).toBe(true);
  });

  it("runs 100 parallel calls without ever exceeding the concurrency limit, results in request order", async () => {
    let running = 0;
    let peak = 0;
    const slow = defineTool({
      name: "slow",
      inputSchema: z.object({ n: z.number() }),
      handler: async ({ n }) => {
        running += 1;
        peak = Math.max(peak, running);
        await new Promise((resolve) => setTimeout(resolve, 5 + (n % 7)));
        running -= 1;
        return `done ${n}`;
      },
    });
    const { executor } = setup([slow], { concurrency: 5, perUserConcurrency: 5 });
    const outcomes = await executor.executeAll(
      Array.from({ length: 100 }, (_, n) => ({ name: "slow", arguments: { n } })),
    );
    expect(peak).toBe(5);
    expect(outcomes.map((o) => o.result.content[0])).toEqual(
      Array.from({ length: 100 }, (_, n) => ({ type: "text", text: `done ${n}` })),
    );
  });

  it("shares its places fairly: one user's flood of slow calls does not delay another user's call", async () => {
    const order: string[] = [];
    const slow = defineTool({
      name: "slow",
      inputSchema: z.object({ who: z.string() }),
      handler: async ({ who }) => {
        order.push(who);
        await new Promise((resolve) => setTimeout(resolve, 200));
        return who;
      },
    });
    const { executor } = setup([slow], { concurrency: 2 });
    const flood = Array.from({ length: 6 }, () => executor.call("slow", { who: "flood" }, { userId: "a" }));
    await vi.waitFor(() => expect(order).toEqual(["flood"])); // the flood holds the one place it may take
    const started = Date.now();
    await executor.call("slow", { who: "other" }, { userId: "b" });
    // Started at once on the place the flood may not take, not after 6 × 200 ms / 2.
    expect(Date.now() - started).toBeLessThan(400);
    expect(order.slice(0, 2)).toEqual(["flood", "other"]);
    await Promise.all(flood);
  });

  it("answers 'busy, try again' to a call that waited its tool's maxQueueWaitMs for a place, without running it", async () => {
    const ran: string[] = [];
    const waits: number[] = [];
    let releaseAll!: () => void;
    const held = new Promise<void>((resolve) => {
      releaseAll = resolve;
    });
    const hold = defineTool({
      name: "hold",
      inputSchema: z.object({ who: z.string() }),
      maxQueueWaitMs: 150,
      handler: async ({ who }, { waitedMs }) => {
        ran.push(who);
        waits.push(waitedMs ?? -1);
        await held;
        return who;
      },
    });
    const { executor } = setup([hold], { concurrency: 1 });
    const first = executor.execute({ name: "hold", arguments: { who: "first" } });
    const started = Date.now();
    const second = await executor.execute({ name: "hold", arguments: { who: "second" } });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(second.status).toBe("limited");
    expect(second.result.content).toEqual([
      {
        type: "text",
        text: "The server is busy: this call to hold waited 150ms for a free place and was not run. Try again in a moment.",
      },
    ]);
    releaseAll();
    expect((await first).status).toBe("ok");
    // A call that got its place after a wait is told how long, so a queue of its own can take that off its limit.
    const third = executor.execute({ name: "hold", arguments: { who: "third" } });
    expect((await third).status).toBe("ok");
    expect(ran).toEqual(["first", "third"]);
    expect(waits.every((ms) => ms >= 0 && ms < 150)).toBe(true);
  });

  it("blocks a second call within the cooldown for the same user only", async () => {
    let now = 1_000_000;
    const roll = defineTool({
      name: "roll",
      inputSchema: { type: "object" },
      cooldownMs: 5000,
      handler: () => "rolled",
    });
    const { executor } = setup([roll], { now: () => now });
    expect((await executor.execute({ name: "roll" }, { userId: "alice" })).status).toBe("ok");
    const blocked = await executor.execute({ name: "roll" }, { userId: "alice" });
    expect(blocked.status).toBe("limited");
    expect(blocked.result.isError).toBe(true);
    expect(blocked.result.content[0]).toMatchObject({
      text: expect.stringMatching(/cooling down.*try again in 5s/),
    });
    expect((await executor.execute({ name: "roll" }, { userId: "bob" })).status).toBe("ok");
    now += 5001;
    expect((await executor.execute({ name: "roll" }, { userId: "alice" })).status).toBe("ok");
  });

  it("enforces a rate limit per user and window", async () => {
    let now = 0;
    const ping = defineTool({
      name: "ping",
      inputSchema: { type: "object" },
      rateLimit: { maxCalls: 2, windowMs: 1000 },
      handler: () => "pong",
    });
    const { executor } = setup([ping], { now: () => now });
    const statuses = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await executor.execute({ name: "ping" }, { userId: "u" })).status);
    expect(statuses).toEqual(["ok", "ok", "limited"]);
    now = 1001;
    expect((await executor.execute({ name: "ping" }, { userId: "u" })).status).toBe("ok");
  });

  it("returns schema violations as isError results a model can act on, without running the handler", async () => {
    let ran = false;
    const tz = defineTool({
      name: "get_time",
      inputSchema: {
        type: "object",
        properties: { timezone: { type: "string" }, format: { enum: ["full", "iso"] } },
        required: ["timezone"],
        additionalProperties: false,
      },
      handler: () => {
        ran = true;
        return "now";
      },
    });
    const { executor } = setup([tz]);
    const outcome = await executor.execute({ name: "get_time", arguments: { format: "long", zone: "x" } });
    expect(ran).toBe(false);
    expect(outcome.status).toBe("invalid-input");
    const text = (outcome.result.content[0] as { text: string }).text;
    expect(text).toContain("`timezone` is required");
    expect(text).toContain('`format` must be one of "full", "iso"');
    expect(text).toContain("`zone` is not an accepted argument");
  });

  it("turns thrown errors into isError results and keeps going", async () => {
    const boom = defineTool({
      name: "boom",
      inputSchema: { type: "object" },
      handler: () => {
        throw new Error("disk on fire");
      },
    });
    const { executor } = setup([boom, echo]);
    const outcome = await executor.execute({ name: "boom" });
    expect(outcome).toMatchObject({ status: "tool-error", result: { isError: true } });
    expect(outcome.result.content[0]).toMatchObject({ text: "boom failed: disk on fire" });
    expect(await executor.call("echo", { text: "still alive" })).toEqual({
      content: [{ type: "text", text: "still alive" }],
    });
  });

  it("normalises objects to structuredContent plus JSON text and checks outputSchema", async () => {
    const good = defineTool({
      name: "stats",
      inputSchema: { type: "object" },
      outputSchema: { type: "object", properties: { total: { type: "number" } }, required: ["total"] },
      handler: () => ({ total: 13 }),
    });
    const bad = defineTool({
      name: "stats_bad",
      inputSchema: { type: "object" },
      outputSchema: { type: "object", properties: { total: { type: "number" } }, required: ["total"] },
      handler: () => ({ sum: "13" }),
    });
    const { executor } = setup([good, bad]);
    expect(await executor.call("stats", {})).toEqual({
      content: [{ type: "text", text: '{"total":13}' }],
      structuredContent: { total: 13 },
    });
    const outcome = await executor.execute({ name: "stats_bad", arguments: {} });
    expect(outcome.status).toBe("invalid-output");
    expect(outcome.result.content[0]).toMatchObject({ text: expect.stringContaining("`total` is required") });
  });

  it("truncates output at the tool's max size with a note saying so", async () => {
    const big = defineTool({
      name: "big",
      inputSchema: { type: "object" },
      maxOutputChars: 50,
      handler: () => "x".repeat(500),
    });
    const { executor } = setup([big]);
    const result = await executor.call("big", {});
    const texts = result.content.map((b) => (b as { text: string }).text);
    expect(texts[0]).toBe("x".repeat(50));
    expect(texts.at(-1)).toContain("output truncated: showing the first 50 of 500 characters");
  });

  it("redacts configured env var values and common key shapes from everything returned", async () => {
    const leak = defineTool({
      name: "leak",
      inputSchema: { type: "object" },
      handler: () => ({
        note: "db password is hunter2-very-secret and key sk-abcdefghijklmnopqrstuvwxyz123456",
        nested: ["ghp_abcdefghijklmnopqrstuvwxyz0123456789AB"],
      }),
    });
    const registry = new ToolRegistry();
    registry.register(leak);
    const executor = new ToolExecutor(registry, {
      redact: { envVars: ["DB_PASS"], env: { DB_PASS: "hunter2-very-secret" } },
    });
    const result = await executor.call("leak", {});
    const serialized = JSON.stringify(result);
    expect(serialized).not.toContain("hunter2-very-secret");
    expect(serialized).not.toContain("sk-abcdefghijklmnopqrstuvwxyz123456");
    expect(serialized).not.toContain("ghp_abcdefghijklmnopqrstuvwxyz0123456789AB");
    expect(serialized).toContain("[REDACTED]");
    expect(result.structuredContent).toEqual({
      note: "db password is [REDACTED] and key [REDACTED]",
      nested: ["[REDACTED]"],
    });
  });

  it("redacts a secret with quotes and backslashes in an object's JSON text, and one straddling the output cut", async () => {
    const secret = 'q"uo\\te-secret-\u00e9-value';
    const tools = [
      defineTool({ name: "obj", inputSchema: { type: "object" }, handler: () => ({ value: secret }) }),
      defineTool({
        name: "long",
        inputSchema: { type: "object" },
        maxOutputChars: 40,
        handler: () => `${"x".repeat(30)}${secret}${"y".repeat(30)}`,
      }),
      defineTool({
        name: "throws",
        inputSchema: { type: "object" },
        handler: () => {
          throw new Error(`could not connect with ${secret}`);
        },
      }),
    ];
    const registry = new ToolRegistry();
    registry.registerAll(tools);
    const executor = new ToolExecutor(registry, { redact: { values: [secret], env: {} } });
    const escaped = JSON.stringify(secret).slice(1, -1);
    for (const name of ["obj", "long", "throws"]) {
      const result = await executor.call(name, {});
      const texts = result.content.map((block) => (block.type === "text" ? block.text : ""));
      for (const text of [...texts, JSON.stringify(result.structuredContent ?? null)]) {
        expect(text, name).not.toContain(escaped);
        expect(text, name).not.toContain(secret.slice(0, 8)); // no half of it either
      }
    }
    const obj = await executor.call("obj", {});
    expect(obj.structuredContent).toEqual({ value: "[REDACTED]" });
    expect(obj.content[0]).toEqual({ type: "text", text: '{"value":"[REDACTED]"}' });
  });

  it("observe gives a message the executor did not produce the same redaction and limit as a tool's result", async () => {
    const secret = "opal-lantern-secret-0042";
    const registry = new ToolRegistry();
    registry.register(echo);
    const executor = new ToolExecutor(registry, {
      redact: { values: [secret], env: {} },
      defaultMaxOutputChars: 30,
    });
    const denial = executor.observe({
      content: [{ type: "text", text: `Denied: ${secret} ${"z".repeat(40)}` }],
      isError: true,
    });
    expect(denial).toEqual({
      content: [
        { type: "text", text: "Denied: [REDACTED] zzzzzzzzzzz" },
        { type: "text", text: "\n[output truncated: showing the first 30 of 59 characters]" },
      ],
      isError: true,
    });
    expect(() => new ToolExecutor(registry, { defaultMaxOutputChars: 0 })).toThrow(
      /defaultMaxOutputChars must be a positive whole number/,
    );
  });

  it("cancels through the caller's AbortSignal", async () => {
    let aborted = false;
    const wait = defineTool({
      name: "wait",
      inputSchema: { type: "object" },
      handler: (_args, { signal }) =>
        new Promise((resolve) => {
          signal.addEventListener("abort", () => {
            aborted = true;
            resolve("late");
          });
        }),
    });
    const { executor } = setup([wait]);
    const controller = new AbortController();
    const pending = executor.execute({ name: "wait" }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    const outcome = await pending;
    expect(outcome.status).toBe("cancelled");
    expect(aborted).toBe(true);
  });

  it("reports progress from handlers", async () => {
    const work = defineTool({
      name: "work",
      inputSchema: { type: "object" },
      handler: (_args, { reportProgress }) => {
        reportProgress(1, 2, "half");
        reportProgress(2, 2);
        return "ok";
      },
    });
    const { executor } = setup([work]);
    const updates: unknown[] = [];
    await executor.execute({ name: "work" }, { onProgress: (u) => updates.push(u) });
    expect(updates).toEqual([
      { progress: 1, total: 2, message: "half" },
      { progress: 2, total: 2 },
    ]);
  });

  it("dry-runs tools with side effects and still runs read-only ones", async () => {
    let wrote = false;
    const write = defineTool({
      name: "write_note",
      inputSchema: { type: "object", properties: { text: { type: "string" } } },
      describeDryRun: (args) => `would save a note saying ${JSON.stringify(args.text)}`,
      handler: () => {
        wrote = true;
        return "saved";
      },
    });
    const read = defineTool({
      name: "read_note",
      inputSchema: { type: "object" },
      annotations: { readOnlyHint: true },
      handler: () => "contents",
    });
    const { executor } = setup([write, read]);
    const dry = await executor.execute({ name: "write_note", arguments: { text: "hi" } }, { dryRun: true });
    expect(dry.status).toBe("dry-run");
    expect(dry.result.content[0]).toMatchObject({
      text: expect.stringContaining('would save a note saying "hi"'),
    });
    expect(wrote).toBe(false);
    expect((await executor.execute({ name: "read_note" }, { dryRun: true })).status).toBe("ok");
  });

  it("throws ToolNotFoundError for unknown tools, but executeAll turns it into an outcome", async () => {
    const { executor } = setup([echo]);
    await expect(executor.execute({ name: "nope" })).rejects.toBeInstanceOf(ToolNotFoundError);
    const [outcome] = await executor.executeAll([{ name: "nope" }]);
    expect(outcome?.status).toBe("unknown-tool");
    expect(outcome?.result.content[0]).toMatchObject({
      text: expect.stringContaining("Available tools: echo"),
    });
  });
});
