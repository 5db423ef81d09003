/**
 * The library examples run as written: the ```ts blocks of the README's Library section, then of docs/protocols.md
 * and docs/agent.md (they build on each other: the registry of the first serves the other two), in order, as one ES
 * module that imports "toolbridge" (the built package, by its own name) — what a user who copies them gets. What each
 * prints is checked against what the docs say it prints. The AI SDK's examples (docs/ai-sdk.md) need the AI SDK and
 * run in test/docs/readme-ai-sdk.test.ts; the shell examples against `serve` in test/docs/docs-shell-examples.test.ts.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));
const tsBlocks = (file: string) =>
  [...readFileSync(path.join(root, file), "utf8").matchAll(/```ts\n([\s\S]*?)```/g)].map(
    (m) => m[1] as string,
  );
const blocks = [...tsBlocks("README.md"), ...tsBlocks("docs/protocols.md"), ...tsBlocks("docs/agent.md")];
// Inside the package, so that `from "toolbridge"` resolves to this package's own exports (the built dist/).
const scratch = path.join(root, "test", ".readme-run");
const cwd = mkdtempSync(path.join(tmpdir(), "tb-readme-"));
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  rmSync(cwd, { recursive: true, force: true });
});

describe("the library examples of the README and docs/", () => {
  it("has the three examples that build on each other", () => {
    expect(blocks).toHaveLength(3);
    expect(blocks[0]).toContain("defineTool");
    expect(blocks[1]).toContain("getProtocol");
    expect(blocks[2]).toContain("createAgent");
  });

  it("runs them as written and prints what the comments say", () => {
    mkdirSync(scratch, { recursive: true });
    const file = path.join(scratch, "readme.ts");
    writeFileSync(file, blocks.join("\n"));
    const tsx = path.join(root, "node_modules", "tsx", "dist", "esm", "index.mjs");
    const out = execFileSync(process.execPath, ["--import", tsx, file], {
      cwd,
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(out).toContain("{ city: 'Oslo', unit: 'C', temperature: 4 }");
    // The streamed Hermes call: prose, then the call as it arrives.
    expect(out).toMatch(/content[\s\S]*call-start[\s\S]*call-end/);
    // The agent: paused for approval, decided, resumed to the answer.
    expect(out).toContain("approval-requested");
    expect(out).toContain("run-paused");
    expect(out).toContain("Oslo is at 4 °C, Lima at 19 °C.");
  });
});
