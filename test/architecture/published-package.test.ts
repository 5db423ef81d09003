/**
 * What `npm install toolbridge` gets: the files `npm pack` would publish (no build cache, no tests, no data that nothing
 * in the package reads), and type declarations that type-check in a strict project that checks
 * libraries too (`skipLibCheck: false`), importing only packages the user's install has.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));
const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as {
  dependencies: Record<string, string>;
  exports: Record<string, { types?: string }>;
};

/**
 * The optional peers (package.json's peerDependenciesMeta) an entry's types may import: a program that imports
 * toolbridge/ai-sdk has the AI SDK installed. pg is no entry's: it loads when a PostgreSQL database opens, and its types
 * must not reach toolbridge/store's users on SQLite.
 */
const PEERS_OF_ENTRY: Record<string, string[]> = { "./ai-sdk": ["ai", "@ai-sdk/provider"] };

/** Every [declaration file, bare specifier] reachable from `entry` through the package's own relative imports. */
function packagesImportedBy(entry: string): Array<[string, string]> {
  const seen = new Set<string>();
  const found: Array<[string, string]> = [];
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, "utf8");
    for (const [, specifier] of text.matchAll(/(?:from|import\()\s*"([^"]+)"/g)) {
      if (!specifier) continue;
      if (specifier.startsWith("."))
        visit(path.resolve(path.dirname(file), specifier.replace(/\.js$/, ".d.ts")));
      else found.push([file, specifier]);
    }
  };
  visit(entry);
  return found;
}

describe("the published package", () => {
  it("ships the build without tsc's incremental cache or tests, and the BFCL data only if the package reads it", () => {
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
    // The BFCL data (1.7 MB) ships only when the package reads it (the spec's `toolbridge eval` would); until then it
    // is the tests' data, in the repository only.
    const readsBfcl = files.some(
      (f) => f.endsWith(".js") && readFileSync(path.join(root, f), "utf8").includes("data/bfcl"),
    );
    if (readsBfcl) expect(files).toContain("data/bfcl/LICENSE");
    else expect(files.filter((f) => f.startsWith("data/"))).toEqual([]);
    expect(files.filter((f) => f.endsWith(".tsbuildinfo"))).toEqual([]);
    expect(files.filter((f) => /\.test\.(js|d\.ts)$/.test(f))).toEqual([]);
  });

  it("declares types that import only Node's modules, dependencies, and an entry's own optional peers", () => {
    const dependencies = new Set(Object.keys(pkg.dependencies));
    const builtins = new Set(builtinModules);
    const foreign: string[] = [];
    for (const [entry, { types }] of Object.entries(pkg.exports)) {
      if (!types) continue;
      // What a program that imports this entry type-checks: the declarations reachable from the entry's.
      const allowed = new Set([...dependencies, ...(PEERS_OF_ENTRY[entry] ?? [])]);
      for (const [file, specifier] of packagesImportedBy(path.join(root, types))) {
        const name = specifier.startsWith("@")
          ? specifier.split("/").slice(0, 2).join("/")
          : specifier.split("/")[0];
        if (!name || name.startsWith("node:") || builtins.has(name)) continue;
        // A package's types come with it, or from @types/<name> among the dependencies.
        const typesPackage = `@types/${name.replace(/^@([^/]+)\//, "$1__")}`;
        if (!allowed.has(name) || (!hasOwnTypes(name) && !allowed.has(typesPackage)))
          foreign.push(`${entry} → ${path.relative(root, file)}: ${specifier}`);
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
