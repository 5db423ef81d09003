/**
 * The toolbridge/ai-sdk tests again, on the AI SDK 7 line (LanguageModelV4): the same test files, with `ai`, `ai/test`
 * and the providers they use resolved to this folder's install instead of the project's (`ai` 6), for the tests and
 * for src/ai-sdk alike. `ai` 7 declares Node 22+, so the main install stays on 6 and CI's Node 24 leg runs this:
 *
 *   npm ci --prefix test/ai-sdk-v7 && npx vitest run --config test/ai-sdk-v7/vitest.config.ts
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const here = fileURLToPath(new URL("./", import.meta.url));
const root = fileURLToPath(new URL("../../", import.meta.url));
if (!existsSync(`${here}node_modules/ai/package.json`))
  throw new Error("The AI SDK 7 tests need their install first: npm ci --prefix test/ai-sdk-v7");
const v7 = createRequire(`${here}package.json`);
const exactly = (specifier: string) => ({
  find: new RegExp(`^${specifier.replace(/[/.]/g, "\\$&")}$`),
  replacement: v7.resolve(specifier),
});

export default defineConfig({
  root,
  resolve: {
    alias: [
      exactly("ai"),
      exactly("ai/test"),
      exactly("@ai-sdk/provider"),
      exactly("@ai-sdk/openai-compatible"),
      exactly("zod"),
    ],
  },
  test: {
    include: ["src/ai-sdk/**/*.test.ts", "test/ai-sdk/**/*.test.ts", "test/docs/readme-ai-sdk.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});
