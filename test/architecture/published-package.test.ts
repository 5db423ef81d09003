/**
 * What `npm install toolbridge` gets: the files `npm pack` would publish (no build cache; the BFCL data, which
 * `toolbridge eval` reads at run time), and type declarations that type-check in a strict project that checks
 * libraries too (`skipLibCheck: false`), importing only packages the user's install has.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));
const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as {
  dependencies: Record<string, string>;
  exports: Record<string, { types?: string }>;
};

function declarationFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "web" ? [] : declarationFiles(full);
    return entry.name.endsWith(".d.ts") ? [full] : [];
  });
}

describe("the published package", () => {
  it("ships the build without tsc's incremental cache, and the BFCL data that toolbridge eval reads", () => {
    const [packed] = JSON.parse(
      execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
        cwd: root,
        encoding: "utf8",
      }),
    ) as [{ files: Array<{ path: string }> }];
    const files = packed.files.map((f) => f.path);
    expect(files).toContain("dist/index.js");
    expect(files).toContain("dist/index.d.ts");
    expect(files).toContain("models/toolbridge-demo.gguf");
    expect(files).toContain("data/bfcl/LICENSE");
    expect(files.filter((f) => f.endsWith(".tsbuildinfo"))).toEqual([]);
    expect(files.filter((f) => /\.test\.(js|d\.ts)$/.test(f))).toEqual([]);
  });

  it("declares types that import only Node's modules and packages the user's install has", () => {
    const installed = new Set(Object.keys(pkg.dependencies));
    const builtins = new Set(builtinModules);
    const foreign: string[] = [];
    for (const file of declarationFiles(path.join(root, "dist"))) {
      const text = readFileSync(file, "utf8");
      for (const [, specifier] of text.matchAll(/(?:from|import\()\s*"([^".][^"]*)"/g)) {
        const name = specifier?.startsWith("@")
          ? specifier.split("/").slice(0, 2).join("/")
          : specifier?.split("/")[0];
        if (!name || name.startsWith("node:") || builtins.has(name)) continue;
        // A package's types come with it, or from @types/<name> among the dependencies.
        const typesPackage = `@types/${name.replace(/^@([^/]+)\//, "$1__")}`;
        if (!installed.has(name) || (!hasOwnTypes(name) && !installed.has(typesPackage)))
          foreign.push(`${path.relative(root, file)}: ${specifier}`);
      }
    }
    expect(foreign).toEqual([]);
  });

  const scratch = path.join(root, "test", ".types-check");
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("type-checks every entry point with skipLibCheck: false (node-llama-cpp's own declarations aside)", () => {
    mkdirSync(scratch, { recursive: true });
    const entries = Object.keys(pkg.exports).filter((key) => pkg.exports[key]?.types);
    expect(entries).toContain(".");
    // Inside the package, so that `toolbridge/…` resolves through its own exports map to dist/, as for a user.
    writeFileSync(
      path.join(scratch, "consumer.ts"),
      entries
        .map(
          (entry, i) =>
            `import * as entry${i} from "${entry === "." ? "toolbridge" : `toolbridge${entry.slice(1)}`}";`,
        )
        .concat(`export const all = [${entries.map((_, i) => `entry${i}`).join(", ")}];`)
        .join("\n"),
    );
    writeFileSync(
      path.join(scratch, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          skipLibCheck: false,
          noEmit: true,
          types: ["node"],
        },
        files: ["consumer.ts"],
      }),
    );
    const tsc = spawnSync(
      process.execPath,
      [path.join(root, "node_modules/typescript/bin/tsc"), "-p", path.join(scratch, "tsconfig.json")],
      { cwd: scratch, encoding: "utf8" },
    );
    const errors = `${tsc.stdout}${tsc.stderr}`.split("\n").filter((line) => /error TS\d+/.test(line));
    // node-llama-cpp (reached only through toolbridge/llama) publishes two errors of its own: types of a
    // devDependency of its (async-retry) and an option its declarations omit (tempDir). Nothing of ours may add one.
    expect(errors.filter((line) => !line.includes("node_modules/node-llama-cpp/"))).toEqual([]);
  });
});

function hasOwnTypes(name: string): boolean {
  try {
    const manifest = JSON.parse(
      readFileSync(path.join(root, "node_modules", name, "package.json"), "utf8"),
    ) as { types?: string; typings?: string; exports?: unknown };
    return (
      Boolean(manifest.types ?? manifest.typings) ||
      JSON.stringify(manifest.exports ?? {}).includes('"types"')
    );
  } catch {
    return false;
  }
}
