import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeTestModel } from "../../src/models/gguf/make-test-model.js";
import { runCli } from "../helpers/run-cli.js";

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), "tb-chat-gguf-"));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("toolbridge chat --model <file.gguf>", { timeout: 120_000 }, () => {
  it("loads the GGUF in-process with a progress display, routes tools natively, and answers", () => {
    const gguf = path.join(dir, "tiny.gguf");
    writeTestModel(gguf, { seed: 7 });
    const result = runCli(
      [
        "chat",
        "--model",
        gguf,
        "--db",
        path.join(dir, "chat.db"),
        "--max-tokens",
        "8",
        "--seed",
        "1",
        "--allow",
        "calculator",
      ],
      { input: "hello\n/exit\n" },
    );
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    const lines = result.stdout.split("\n");
    expect(lines[0]).toBe("Loading tiny.gguf…");
    expect(lines[1]).toMatch(/^Loaded tiny\.gguf in \d+\.\d s$/);
    expect(lines[2]).toMatch(/^toolbridge chat · llama:tiny\.gguf \(native tool calling\) · 1 tool ·/);
    // Random weights: what it says is noise, but the turn ran through the model and the chat went on to /exit.
    expect(result.stdout).toContain("› hello");
    expect(result.stdout).toMatch(/Conversation conv_\S+ is saved in/);
  });
});
