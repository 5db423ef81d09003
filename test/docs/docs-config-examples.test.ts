/**
 * Every `toolbridge.config.json` example of the README and docs/ is a valid config: each ```json block whose keys are
 * config keys goes through the same check `loadConfig` makes (a typo, a wrong type or a removed key fails here, as it
 * would fail for the user who copies it). Model files and servers they name are not needed: those are checked when a
 * command uses them.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { configSchema } from "../../src/config/config-schema.js";
import { parseConfig } from "../../src/config/load-config.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const configKeys = new Set(Object.keys(configSchema.shape));
const files = [
  "README.md",
  ...readdirSync(path.join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];
const blocks = files.flatMap((file) =>
  [...readFileSync(path.join(root, file), "utf8").matchAll(/```json\n([\s\S]*?)```/g)].map((m) => ({
    file,
    json: JSON.parse(m[1] as string) as Record<string, unknown>,
  })),
);
const configs = blocks.filter(({ json }) => Object.keys(json).some((key) => configKeys.has(key)));

describe("the config examples of the README and docs/", () => {
  it("finds them (filesystem, tools, model, models, mcp, mcpServers, serve's own)", () => {
    const keys = new Set(configs.flatMap(({ json }) => Object.keys(json)));
    for (const key of ["filesystem", "tools", "model", "models", "mcp", "mcpServers"])
      expect(keys).toContain(key);
    expect(configs.length).toBeGreaterThanOrEqual(6);
  });

  for (const [index, { file, json }] of configs.entries())
    it(`${file} #${index} (${Object.keys(json).join(", ")}) is a valid config`, () => {
      expect(() => parseConfig(json, `${file} example`, root)).not.toThrow();
    });
});
