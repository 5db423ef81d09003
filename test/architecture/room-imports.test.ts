/**
 * The rooms of src/ and the one direction imports may run (docs/development.md):
 * every room may import `core`; no room imports one above it; no two files import each other, even through others.
 * Type-only imports count: a contract that lives in the wrong room is the problem this guards against.
 *
 * Checked here rather than with dependency-cruiser or madge: both read TypeScript through the `typescript` package's
 * compiler API, which TypeScript 7 (our compiler) no longer ships.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = fileURLToPath(new URL("../../src/", import.meta.url));

/** Each room and the rooms it may import (besides itself and `core`). Lower rooms first. */
const MAY_IMPORT: Record<string, readonly string[]> = {
  core: [],
  protocols: [],
  tools: [],
  store: ["tools"],
  models: ["protocols", "tools"],
  agent: ["models", "protocols", "tools", "store"],
  mcp: ["tools", "store"],
  config: ["tools", "mcp", "models", "protocols"],
  server: ["mcp", "tools", "store", "agent", "models", "protocols", "config"],
  // BFCL-style evaluation: drives any model through the agent's one path from output to calls.
  eval: ["agent", "models", "protocols", "tools"],
  cli: ["agent", "config", "eval", "mcp", "models", "protocols", "server", "store", "tools"],
  // The AI SDK adapters: protocols as middleware, the registry as a ToolSet, toolbridge models as AI SDK models.
  "ai-sdk": ["models", "protocols", "tools"],
};

const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^"';]*?\bfrom\s*["'](\.{1,2}\/[^"']+)["']/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [full] : [];
  });
}

function roomOf(file: string): string {
  const relative = path.relative(SRC, file);
  return relative.includes(path.sep) ? (relative.split(path.sep)[0] as string) : "(root)";
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(IMPORT)].map((m) =>
    path.resolve(path.dirname(file), (m[1] as string).replace(/\.js$/, ".ts")),
  );
}

const files = sourceFiles(SRC);
const graph = new Map(files.map((file) => [file, importsOf(file)]));

describe("src/ rooms", () => {
  it("every room is known", () => {
    const rooms = new Set(files.map(roomOf));
    rooms.delete("(root)");
    expect([...rooms].filter((room) => !(room in MAY_IMPORT))).toEqual([]);
  });

  it("imports run downward only", () => {
    const upward: string[] = [];
    for (const [file, targets] of graph) {
      const from = roomOf(file);
      if (from === "(root)") continue; // index.ts assembles the public API from every room
      for (const target of targets) {
        const to = roomOf(target);
        if (to === from || to === "core") continue;
        if (!MAY_IMPORT[from]?.includes(to))
          upward.push(`${path.relative(SRC, file)} → ${path.relative(SRC, target)}`);
      }
    }
    expect(upward).toEqual([]);
  });

  it("no import cycle between files", () => {
    // Tarjan's strongly connected components: any component of two or more files is a cycle.
    let index = 0;
    const order = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const onStack = new Set<string>();
    const cycles: string[][] = [];
    const visit = (file: string) => {
      order.set(file, index);
      low.set(file, index);
      index += 1;
      stack.push(file);
      onStack.add(file);
      for (const next of graph.get(file) ?? []) {
        if (!graph.has(next)) continue;
        if (!order.has(next)) {
          visit(next);
          low.set(file, Math.min(low.get(file) as number, low.get(next) as number));
        } else if (onStack.has(next))
          low.set(file, Math.min(low.get(file) as number, order.get(next) as number));
      }
      if (low.get(file) === order.get(file)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop() as string;
          onStack.delete(member);
          component.push(path.relative(SRC, member));
        } while (member !== file);
        if (component.length > 1) cycles.push(component.sort());
      }
    };
    for (const file of graph.keys()) if (!order.has(file)) visit(file);
    expect(cycles).toEqual([]);
  });
});
