import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { RunView } from "../../src/agent/run-view.js";
import { runCli } from "../helpers/run-cli.js";

const dir = mkdtempSync(path.join(tmpdir(), "tb-replay-text-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function replayFile(name: string, turns: object[]): string {
  const file = path.join(dir, name);
  writeFileSync(file, `${turns.map((t) => JSON.stringify(t)).join("\n")}\n`);
  return file;
}

// `{"text": …}` turns are what a text-only model says; the run's protocol finds the calls in them.
describe("replayed text turns are parsed by the run's protocol", { timeout: 120_000 }, () => {
  it("runs the call written in the protocol's format and answers with its result", () => {
    const turns = replayFile("hermes.jsonl", [
      {
        text: 'Let me work that out.\n<tool_call>\n{"name": "calculator", "arguments": {"expression": "47.5*0.15"}}\n</tool_call>',
      },
      { text: "15% of 47.50 is 7.125." },
    ]);
    const run = runCli(
      ["run", "what is 15% of 47.50?", "--model", `replay:${turns}`, "--protocol", "hermes", "--json"].concat(
        ["--db", path.join(dir, "a.db")],
      ),
    );
    expect(run.status).toBe(0);
    const view = JSON.parse(run.stdout) as RunView;
    expect(view).toMatchObject({
      status: "finished",
      stopReason: "final-answer",
      answer: "15% of 47.50 is 7.125.",
    });
    expect(view.steps[0]?.calls).toMatchObject([
      {
        name: "calculator",
        arguments: { expression: "47.5*0.15" },
        result: { content: [{ text: "7.125" }] },
      },
    ]);
  });

  it("sends a malformed call back to the model as an error observation, and the repaired call runs", () => {
    const turns = replayFile("repair.jsonl", [
      { text: '<tool_call>{"name": "calculator", "arguments": {"expression": }</tool_call>' },
      { text: '<tool_call>{"name": "calculator", "arguments": {"expression": "2**10"}}</tool_call>' },
      { text: "2 to the 10th is 1024." },
    ]);
    const run = runCli([
      "run",
      "2^10?",
      "--model",
      `replay:${turns}`,
      "--protocol",
      "hermes",
      "--json",
      "--db",
      path.join(dir, "b.db"),
    ]);
    expect(run.status).toBe(0);
    const view = JSON.parse(run.stdout) as RunView;
    expect(view).toMatchObject({ status: "finished", answer: "2 to the 10th is 1024." });
    const executed = view.steps.flatMap((s) => s.calls).filter((c) => !c.result?.isError);
    expect(executed).toMatchObject([{ name: "calculator", result: { content: [{ text: "1024" }] } }]);
  });
});
