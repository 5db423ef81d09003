/**
 * Property: for any secret (quotes, backslashes, control characters, unicode, regex metacharacters), whatever shape a
 * tool returns it in and whatever the model repeats, the literal never reaches a sink: the observation, the events,
 * the run view, the trace file, every column of every table of the SQLite file (the FTS index's own tables too).
 * The CLI's stdout (`--json`) and stderr are covered by one run of the built bin in redaction-cli.test.ts.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/agent/create-agent.js";
import type { AgentEvent } from "../../src/agent/events.js";
import type { LanguageModel } from "../../src/core/language-model.js";
import { createReplayModel, type ReplayTurn } from "../../src/models/replay-model.js";
import { SqliteStore } from "../../src/store/sqlite-store.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { ToolExecutor } from "../../src/tools/tool-executor.js";
import { ToolRegistry } from "../../src/tools/tool-registry.js";
import { openSqlite } from "../helpers/open-sqlite.js";

const root = mkdtempSync(path.join(tmpdir(), "tb-redaction-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const SPECIALS = ['"', "\\", "'", "$", ".", "*", "(", ")", "[", "]", "{", "}", "|", "^", "?", "+", "/", "%"];
const UNICODE = ["é", "ß", "中文", "😀", "\u200b", "\n", "\t", "\u0001", "\u2028"];
/**
 * Secrets of 8 to ~40 characters. The fixed "Zq" start keeps a shrunk secret ("aaaaaaaa") from colliding with text
 * every sink contains anyway (JSON keys, column values like "running"), which would be a false alarm, not a leak.
 */
const secretArb = fc
  .array(
    fc.oneof(
      fc.constantFrom(...SPECIALS),
      fc.constantFrom(...UNICODE),
      fc.string({ minLength: 1, maxLength: 4 }),
    ),
    { minLength: 4, maxLength: 14 },
  )
  .map((parts) => `Zq${parts.join("")}`)
  .filter((s) => s.length >= 8);

type Shape = "string" | "object" | "nested-array" | "content-blocks" | "is-error" | "throws" | "long";
const SHAPES: Shape[] = ["string", "object", "nested-array", "content-blocks", "is-error", "throws", "long"];
const MAX_OUTPUT = 60;

/** The forms a leak would take: the literal, and the literal as any JSON text (a stored column, a trace line) has it. */
function forms(secret: string): string[] {
  return [...new Set([secret, JSON.stringify(secret).slice(1, -1)])];
}

function expectClean(where: string, text: string, secret: string): void {
  for (const form of forms(secret)) {
    if (text.includes(form))
      throw new Error(`${where} contains the secret ${JSON.stringify(secret)}:\n${text.slice(0, 2000)}`);
  }
}

/** A tool that hands back `secret` in the given shape (the secret lives in a closure: set per property run). */
function leakyTools(secret: () => string) {
  return [
    defineTool({
      name: "leak",
      description: "Return the secret in some shape.",
      inputSchema: { type: "object", properties: { shape: { type: "string" } }, required: ["shape"] },
      maxOutputChars: MAX_OUTPUT,
      handler: ({ shape }: { shape: Shape }) => {
        const s = secret();
        switch (shape) {
          case "string":
            return `the value is ${s}, done`;
          case "object":
            return { note: `value=${s}`, nested: { value: s, list: [s, { deeper: `<${s}>` }] } };
          case "nested-array":
            return [[s], [{ a: s }, [`${s}${s}`]]];
          case "content-blocks":
            return {
              content: [
                { type: "text", text: `first ${s}` },
                { type: "resource", resource: { uri: "memory://x", text: `resource ${s}` } },
              ],
            };
          case "is-error":
            return { content: [{ type: "text", text: `bad: ${s}` }], isError: true };
          case "throws":
            throw new Error(`could not connect using ${s}`);
          case "long":
            // The cut at MAX_OUTPUT falls inside the secret.
            return `${"x".repeat(MAX_OUTPUT - 4)}${s}${"y".repeat(50)}`;
        }
      },
    }),
    defineTool({
      name: "echo",
      description: "Return the text.",
      inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
      handler: ({ text }: { text: string }) => text,
    }),
  ];
}

/** Events, the run view, the trace files and every column of every table (FTS5 shadow tables included). */
function checkSinks(dir: string, events: AgentEvent[], view: unknown, secret: string): void {
  expectClean("the events", JSON.stringify(events), secret);
  expectClean("the run view", JSON.stringify(view), secret);
  for (const file of readdirSync(path.join(dir, "traces")))
    expectClean(`trace ${file}`, readFileSync(path.join(dir, "traces", file), "utf8"), secret);
  const db = openSqlite(path.join(dir, "toolbridge.db"), { readonly: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{
      name: string;
    }>;
    expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(["messages", "memory_fts"]));
    for (const { name } of tables) {
      for (const row of db.prepare(`SELECT * FROM "${name}"`).all() as Array<Record<string, unknown>>) {
        for (const [column, value] of Object.entries(row)) {
          const text = Buffer.isBuffer(value) ? value.toString("utf8") : String(value);
          expectClean(`${name}.${column}`, text, secret);
        }
      }
    }
    const indexed = db
      .prepare("SELECT count(*) AS n FROM memory_fts WHERE memory_fts MATCH 'REDACTED'")
      .get() as {
      n: number;
    };
    expect(indexed.n).toBeGreaterThan(0);
  } finally {
    db.close();
  }
}

/**
 * A backend that runs a call while it generates (`executeCall`, as node-llama-cpp does) and streams a native call's
 * arguments in pieces: the two paths the replay model does not take.
 */
function inGenerationModel(secret: string, chunk: number): LanguageModel {
  const pieces = (text: string) =>
    Array.from({ length: Math.ceil(text.length / chunk) }, (_, i) => text.slice(i * chunk, (i + 1) * chunk));
  return {
    id: "in-generation",
    async *stream(request) {
      const turn = request.messages.filter((m) => m.role === "assistant").length;
      if (turn > 0) {
        for (const text of pieces(`Done, and the key was ${secret}.`)) yield { type: "text-delta", text };
        yield { type: "finish", reason: "stop" };
        return;
      }
      for (const text of pieces(`Thinking about ${secret} now.`)) yield { type: "text-delta", text };
      const outcome = await request.executeCall?.({
        name: "echo",
        arguments: { text: `in generation ${secret}` },
      });
      if (outcome?.status !== "done") throw new Error("the in-generation call did not run");
      for (const text of pieces(`It said ${secret}. `)) yield { type: "text-delta", text };
      yield { type: "call-start", id: "n1", name: "echo" };
      const args = JSON.stringify({ text: `streamed ${secret}` });
      for (const text of pieces(args)) yield { type: "call-args-delta", id: "n1", text };
      yield { type: "call-end", id: "n1", name: "echo", arguments: args };
      yield { type: "finish", reason: "tool-calls" };
    },
  };
}

describe("redaction across result shapes and sinks", () => {
  it("the executor's result never holds the literal, in any shape (observation)", async () => {
    let current = "";
    const registry = new ToolRegistry();
    registry.registerAll(leakyTools(() => current));
    await fc.assert(
      fc.asyncProperty(secretArb, fc.constantFrom(...SHAPES), async (secret, shape) => {
        current = secret;
        const executor = new ToolExecutor(registry, { redact: { values: [secret], env: {} } });
        const result = await executor.call("leak", { shape });
        const strings: string[] = [];
        JSON.stringify(result, (_k, v: unknown) => {
          if (typeof v === "string") strings.push(v);
          return v;
        });
        for (const text of strings) expectClean(`${shape} result`, text, secret);
        // "long" is cut before the secret's marker; every other shape shows where the secret was.
        if (shape !== "long") expect(JSON.stringify(result)).toContain("[REDACTED]");
      }),
      { numRuns: 300 },
    );
  });

  it("a run whose model repeats the secret and whose tools return it stores, emits and traces no literal", async () => {
    let current = "";
    const registry = new ToolRegistry();
    registry.registerAll(leakyTools(() => current));
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        secretArb,
        fc.shuffledSubarray(SHAPES, { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 1, max: 9 }),
        async (secret, shapes, chunkSize) => {
          current = secret;
          const dir = path.join(root, `run-${++n}`);
          const executor = new ToolExecutor(registry, { redact: { values: [secret], env: {} } });
          const store = new SqliteStore(path.join(dir, "toolbridge.db"));
          const events: AgentEvent[] = [];
          const turns: ReplayTurn[] = [
            {
              reasoning: `I recall the key ${secret} from before.`,
              text: `Let me check. The key is ${secret}, I think.`,
              calls: [
                ...shapes.map((shape) => ({ name: "leak", arguments: { shape } })),
                { name: "echo", arguments: { text: `repeat ${secret}` } },
              ],
            },
            { text: `Final answer: the secret was ${secret} and ${secret.slice(0, 3)}.` },
          ];
          const agent = createAgent({
            model: createReplayModel(turns, { chunkSize }),
            tools: executor,
            store,
            traceDir: path.join(dir, "traces"),
            onEvent: (event) => events.push(event),
          });
          const handle = agent.run("What is the stored key? Look it up with the tools.");
          const streamed: string[] = [];
          for await (const event of handle) if (event.type === "text-delta") streamed.push(event.text);
          const view = await handle.result;
          await store.close();

          expect(view.status).toBe("finished");
          expect(view.answer).toContain("[REDACTED]");
          // Streamed pieces, joined, are exactly the redacted turns: nothing held back is lost, no half secret shows.
          const redact = executor.redactor as NonNullable<typeof executor.redactor>;
          expect(streamed.join("")).toBe(redact(turns[0]?.text ?? "") + redact(turns[1]?.text ?? ""));
          checkSinks(dir, events, view, secret);
        },
      ),
      { numRuns: 60 },
    );
  }, 180_000);

  it("a backend that runs calls mid-generation and streams argument deltas leaks nothing either", async () => {
    let current = "";
    const registry = new ToolRegistry();
    registry.registerAll(leakyTools(() => current));
    let n = 0;
    await fc.assert(
      fc.asyncProperty(secretArb, fc.integer({ min: 1, max: 7 }), async (secret, chunk) => {
        current = secret;
        const dir = path.join(root, `gen-${++n}`);
        const executor = new ToolExecutor(registry, { redact: { values: [secret], env: {} } });
        const store = new SqliteStore(path.join(dir, "toolbridge.db"));
        const events: AgentEvent[] = [];
        const agent = createAgent({
          model: inGenerationModel(secret, chunk),
          tools: executor,
          store,
          traceDir: path.join(dir, "traces"),
          onEvent: (event) => events.push(event),
        });
        const view = await agent.run("Echo the key.").result;
        await store.close();
        expect(view.status).toBe("finished");
        const args = events.flatMap((e) => (e.type === "call-args-delta" ? [e.text] : [])).join("");
        expect(args).toBe(JSON.stringify({ text: "streamed [REDACTED]" }));
        checkSinks(dir, events, view, secret);
      }),
      { numRuns: 30 },
    );
  }, 180_000);
});
