/**
 * The AI SDK examples (docs/ai-sdk.md) run as written: its three ```ts blocks, in order, as one ES module in a project that
 * installed toolbridge and the `ai` under test (6 here, 7 under test/ai-sdk-v7's config; `createUserProject`). Two
 * things the machine has no network for are put in place: the local completions server the first example talks to is
 * a tiny GGUF served on loopback (its plan writes the calls the prompts ask for, the arguments generated under a
 * grammar), and `npx -y @modelcontextprotocol/server-everything` is the installed package's entry. `./model.gguf` is
 * the bundled demo model. The module type-checks against that major's declarations, and what each example prints is
 * checked against its comments.
 */
import { spawn } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeTestModel } from "../../src/models/gguf/make-test-model.js";
import { AI_SDK_MAJOR } from "../ai-sdk/helpers/scripted-model.js";
import { createUserProject } from "../ai-sdk/helpers/user-project.js";
import type {
  CompletionPlan,
  CompletionRequestBody,
  LlamaServer,
} from "../models/helpers/llama-openai-server.js";
import { startLlamaOpenAIServer } from "../models/helpers/llama-openai-server.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const section = readFileSync(path.join(root, "docs", "ai-sdk.md"), "utf8");
const blocks = [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] as string);

const EVERYTHING = path.join(
  path.dirname(
    createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/package.json"),
  ),
  "dist/index.js",
);

/** The local server's answers: the call each example's prompt asks for (arguments by grammar), then free text. */
function plan(body: CompletionRequestBody): CompletionPlan | undefined {
  const p = body.prompt;
  if (p.includes("<tool_response>")) return undefined;
  if (p.includes("everything.echo"))
    return {
      prefix:
        '<tool_call>\n{"name": "calculator", "arguments": {"expression": "2^10"}}\n</tool_call>\n<tool_call>\n{"name": "everything.echo", "arguments": ',
      schema: { type: "object", properties: { message: { enum: ["done"] } } },
      suffix: "}\n</tool_call>",
      maxTokens: 64,
    };
  if (p.includes("get_weather"))
    return {
      prefix: '<tool_call>\n{"name": "get_weather", "arguments": ',
      schema: { type: "object", properties: { city: { enum: ["Lima"] } } },
      suffix: "}\n</tool_call>",
      maxTokens: 64,
    };
  return undefined;
}

const scratch = mkdtempSync(path.join(tmpdir(), "tb-readme-ai-sdk-"));
let server: LlamaServer;
const project = createUserProject("toolbridge-readme");
beforeAll(async () => {
  const gguf = path.join(scratch, "tiny.gguf");
  writeTestModel(gguf, { seed: 3 });
  server = await startLlamaOpenAIServer({ modelPath: gguf, completionPlan: plan });
});
afterAll(async () => {
  await server?.close();
  project.remove();
  rmSync(scratch, { recursive: true, force: true });
});

describe(`docs/ai-sdk.md examples on ai ${AI_SDK_MAJOR}`, () => {
  it("has the three examples that build on each other", () => {
    expect(blocks).toHaveLength(3);
    expect(blocks[0]).toContain("toolbridgeToolMiddleware");
    expect(blocks[1]).toContain("toAiSdkTools");
    expect(blocks[2]).toContain("llama(");
  });

  it("runs them as written and prints what the comments say", async () => {
    const source = blocks
      .join("\n")
      .replace("http://127.0.0.1:8080/v1", server.baseURL)
      .replace(
        '{ command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"] }',
        JSON.stringify({ command: process.execPath, args: [EVERYTHING] }),
      );
    expect(source).toContain(server.baseURL);
    expect(source).toContain(EVERYTHING);
    writeFileSync(path.join(project.dir, "readme.ts"), source);
    copyFileSync(path.join(root, "models/toolbridge-demo.gguf"), path.join(project.dir, "model.gguf"));
    const tsx = path.join(root, "node_modules/tsx/dist/esm/index.mjs");
    // Not spawnSync: the completions server answers from this process, whose event loop must keep turning.
    const node = (args: string[]) =>
      new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, args, { cwd: project.dir, timeout: 240_000 });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (d) => {
          stdout += d;
        });
        child.stderr.on("data", (d) => {
          stderr += d;
        });
        child.on("close", (status) => resolve({ status, stdout, stderr }));
      });
    // As a TypeScript user of this major compiles them…
    writeFileSync(
      path.join(project.dir, "tsconfig.json"),
      JSON.stringify({
        extends: path.join(root, "tsconfig.json"),
        compilerOptions: {
          noEmit: true,
          preserveSymlinks: true,
          rootDir: ".",
          typeRoots: [path.join(root, "node_modules/@types")],
        },
        include: [],
        files: ["readme.ts"],
      }),
    );
    const typecheck = await node([path.join(root, "node_modules/typescript/bin/tsc"), "-p", "."]);
    expect(typecheck.stdout).toBe("");
    expect(typecheck.status).toBe(0);
    // …and runs them.
    const run = await node(["--preserve-symlinks", "--import", tsx, "readme.ts"]);
    expect(run.stderr).not.toMatch(/Error/);
    expect(run.status).toBe(0);
    const out = run.stdout;
    // 1. The completions server's call, run by the SDK.
    expect(out).toContain("{ city: 'Lima' } { city: 'Lima', temperature: 19 }");
    // 2. The calculator ran at once; the echo waited for its approval, then ran.
    expect(out).toContain("[ 'calculator' ] ran; everything.echo waits");
    expect(out).toContain("everything.echo { content: [ { type: 'text', text: 'Echo: done' } ] }");
    // 3. The bundled demo model, in-process.
    expect(out).toContain("calculator { expression: '15% of 47.50' }");
    // The answer the comment gives (the demo model states the result, with or without the sum before it).
    expect(out).toMatch(
      /calculator \{ expression: '15% of 47\.50' \}\n(?:15% of 47\.50 (?:=|is) )?7\.125\.?\n/,
    );
  }, 300_000);
});
