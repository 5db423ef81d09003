/**
 * What importing toolbridge costs: `toolbridge/protocols` is pure TypeScript (a browser bundle can take it), no entry
 * point loads the native SQLite addon until a SqliteStore is opened, and the root and `toolbridge/tools` stay within a
 * module budget: provider SDKs load at a model's first request, the dice library (with its own expression engine) at
 * the first roll, mathjs in the calculator's worker. Checked in a fresh process on the built package, the way a
 * user's program imports it.
 */
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));
const recorder = fileURLToPath(new URL("../fixtures/loader/record-loaded-modules.mjs", import.meta.url));

function loadedBy(entry: string): string[] {
  const out = execFileSync(process.execPath, [recorder, new URL(entry, `file://${root}`).href], {
    encoding: "utf8",
  });
  const { esm, cjs } = JSON.parse(out) as { esm: string[]; cjs: string[] };
  return [...esm, ...cjs];
}

/**
 * Modules each entry may load, with room to grow: the root loaded 1,942 (both provider SDKs, the dice library and its
 * mathjs) before these budgets, 414 after; `toolbridge/tools` 1,279 before, 238 after.
 */
const MODULE_BUDGET = { "dist/index.js": 500, "dist/tools/index.js": 300, "dist/protocols/index.js": 120 };
/** Packages that load on first use, never with an import of toolbridge's root or `toolbridge/tools`. */
const LOADED_ON_FIRST_USE = ["openai", "@anthropic-ai/sdk", "@dice-roller/rpg-dice-roller", "mathjs"];

const packagesIn = (modules: string[]) =>
  new Set(
    modules
      .map((m) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(m)?.[1])
      .filter((name): name is string => name !== undefined),
  );

describe("import cost", () => {
  it("toolbridge/store (PostgresDatabase included) loads neither pg nor better-sqlite3 until a database is opened", () => {
    const packages = packagesIn(loadedBy("dist/store/index.js"));
    expect(packages).not.toContain("pg");
    expect(packages).not.toContain("better-sqlite3");
  });

  it("toolbridge/protocols loads no native addon, no model SDK and no server code", () => {
    const modules = loadedBy("dist/protocols/index.js");
    const packages = packagesIn(modules);
    for (const heavy of ["better-sqlite3", "node-llama-cpp", "openai", "@anthropic-ai/sdk", "hono", "ajv"])
      expect(packages, heavy).not.toContain(heavy);
    expect(modules.filter((m) => m.endsWith(".node"))).toEqual([]);
    // Only the protocols room and the core room of toolbridge itself.
    const own = modules.filter((m) => m.includes("/dist/")).map((m) => m.replace(/^.*\/dist\//, ""));
    expect(own.filter((m) => !m.startsWith("protocols/") && !m.startsWith("core/"))).toEqual([]);
  });

  it("the root import does not load better-sqlite3, pg or node-llama-cpp", () => {
    const modules = loadedBy("dist/index.js");
    const packages = packagesIn(modules);
    expect(packages).not.toContain("better-sqlite3");
    expect(packages).not.toContain("node-llama-cpp");
    // pg is an optional peer: loaded only when a PostgreSQL database is opened.
    expect(packages).not.toContain("pg");
    expect(modules.filter((m) => m.endsWith(".node"))).toEqual([]);
  });

  it("the AI SDK (an optional peer) loads only through toolbridge/ai-sdk", () => {
    const aiSdk = (packages: Set<string>) =>
      [...packages].filter((p) => p === "ai" || p.startsWith("@ai-sdk/"));
    for (const entry of [
      "dist/index.js",
      "dist/tools/index.js",
      "dist/mcp/index.js",
      "dist/models/llama/index.js",
    ])
      expect(aiSdk(packagesIn(loadedBy(entry))), entry).toEqual([]);
    // Nor does toolbridge/ai-sdk load a native addon: node-llama-cpp waits for the first call of a llama() model.
    const modules = loadedBy("dist/ai-sdk/index.js");
    const packages = packagesIn(modules);
    expect(packages).toContain("ai");
    for (const heavy of ["better-sqlite3", "node-llama-cpp", "openai", "@anthropic-ai/sdk", "hono"])
      expect(packages, heavy).not.toContain(heavy);
    expect(modules.filter((m) => m.endsWith(".node"))).toEqual([]);
  });

  for (const [entry, budget] of Object.entries(MODULE_BUDGET)) {
    it(`${entry} loads at most ${budget} modules, and no package that loads on first use`, () => {
      const modules = new Set(loadedBy(entry).map((m) => m.replace(/^file:\/\//, "")));
      expect(modules.size).toBeLessThanOrEqual(budget);
      const packages = packagesIn([...modules]);
      for (const lazy of LOADED_ON_FIRST_USE) expect(packages, lazy).not.toContain(lazy);
    });
  }
});
