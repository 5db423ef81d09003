/**
 * What a TypeScript user of `ai` 6 or 7 writes with toolbridge/ai-sdk type-checks against that major's own
 * declarations. toolbridge is compiled against `ai` 6; its declarations name the SDK's types (`LanguageModelMiddleware`,
 * `ToolSet`, `LanguageModelV3`), which resolve to whatever `ai` the user has. So the check is made the way a user's
 * project sees the package (`createUserProject`): the declarations' `ai` resolves to the major under test alone.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { AI_SDK_MAJOR } from "./helpers/scripted-model.js";
import { createUserProject } from "./helpers/user-project.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const project = createUserProject("toolbridge-types-probe");
afterAll(() => project.remove());

/** The README's three snippets, and the rest of the API, as a user of this major writes them. */
const PROBE = `
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, stepCountIs, streamText, wrapLanguageModel } from "ai";
import { MockLanguageModelV${AI_SDK_MAJOR === 7 ? 4 : 3} as Mock } from "ai/test";
import { llama, toAiSdkModel, toAiSdkToolApproval, toAiSdkTools, toolbridgeToolMiddleware } from "toolbridge/ai-sdk";
import { createReplayModel } from "toolbridge";
import { ToolRegistry } from "toolbridge/tools";

const tools = toAiSdkTools(new ToolRegistry(), { approval: { write_file: "ask" }, userId: "alice" });
export const local = wrapLanguageModel({
  model: createOpenAICompatible({ name: "local", baseURL: "http://127.0.0.1:8080/v1" }).completionModel("qwen"),
  middleware: toolbridgeToolMiddleware({ protocol: "hermes" }),
});
export const mock = wrapLanguageModel({ model: new Mock({}), middleware: [toolbridgeToolMiddleware({ protocol: "auto" })] });

export async function run(): Promise<string> {
  const answer = await generateText({ model: local, tools, prompt: "Hi"${AI_SDK_MAJOR === 7 ? ", toolApproval: toAiSdkToolApproval(tools)" : ""} });
  void toAiSdkToolApproval(tools);
  const streamed = streamText({ model: llama("./model.gguf", { mode: "text" }), tools, stopWhen: stepCountIs(3), prompt: "Hi" });
  for await (const part of streamed.fullStream) if (part.type === "tool-call") part.toolName.toUpperCase();
  await generateText({ model: toAiSdkModel(createReplayModel([{ text: "ok" }])), prompt: "Hi" });
  return answer.text;
}
`;

describe(`toolbridge/ai-sdk's declarations on ai ${AI_SDK_MAJOR}`, () => {
  it("type-check what a user of this major writes", () => {
    writeFileSync(path.join(project.dir, "probe.ts"), PROBE);
    writeFileSync(
      path.join(project.dir, "tsconfig.json"),
      JSON.stringify({
        extends: path.join(root, "tsconfig.json"),
        // Linked, not resolved to the repository: from here, the declarations see the `ai` under test.
        compilerOptions: {
          noEmit: true,
          preserveSymlinks: true,
          rootDir: ".",
          typeRoots: [path.join(root, "node_modules/@types")],
        },
        include: [],
        files: ["probe.ts"],
      }),
    );
    const tsc = path.join(root, "node_modules/typescript/bin/tsc");
    const run = spawnSync(process.execPath, [tsc, "-p", project.dir, "--listFiles"], { encoding: "utf8" });
    const lines = run.stdout.split("\n");
    expect(lines.filter((line) => line.includes("error TS"))).toEqual([]);
    expect(run.status).toBe(0);
    // The declarations resolved `ai` to the major under test, and only to it.
    const majors = lines
      .filter((file) => /node_modules\/ai\/dist\/index\.d\.ts$/.test(file))
      .map((file) => {
        const manifest = JSON.parse(readFileSync(path.join(path.dirname(file), "../package.json"), "utf8"));
        return Number(String(manifest.version).split(".")[0]);
      });
    expect(majors).toEqual([AI_SDK_MAJOR]);
  }, 120_000);
});
