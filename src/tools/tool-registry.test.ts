import { describe, expect, it } from "vitest";
import { defineTool } from "./define-tool.js";
import { DuplicateToolError, InvalidCursorError } from "./errors.js";
import { type RegistryChange, ToolRegistry } from "./tool-registry.js";

const make = (name: string, category = "general") =>
  defineTool({ name, category, inputSchema: { type: "object" }, handler: () => name });

describe("ToolRegistry", () => {
  it("registers, gets, lists sorted by name and unregisters", () => {
    const registry = new ToolRegistry();
    registry.registerAll([make("b"), make("a"), make("c.d")]);
    expect(registry.get("a")?.tool.name).toBe("a");
    expect(registry.list().tools.map((t) => t.name)).toEqual(["a", "b", "c.d"]);
    expect(registry.unregister("b")).toBe(true);
    expect(registry.unregister("b")).toBe(false);
    expect(registry.names()).toEqual(["a", "c.d"]);
  });

  it("rejects duplicate names and leaves the first definition in place", () => {
    const registry = new ToolRegistry();
    const first = make("calc");
    registry.register(first);
    expect(() => registry.register(make("calc"))).toThrow(DuplicateToolError);
    expect(registry.get("calc")).toBe(first);
  });

  it("paginates with opaque cursors that survive concurrent changes", () => {
    const registry = new ToolRegistry({ pageSize: 2 });
    registry.registerAll(["e", "a", "d", "b", "c"].map((n) => make(n)));
    const first = registry.list();
    expect(first.tools.map((t) => t.name)).toEqual(["a", "b"]);
    expect(first.nextCursor).toBeTypeOf("string");
    registry.unregister("b"); // the tool the cursor points after disappears
    const second = registry.list({ cursor: first.nextCursor! });
    expect(second.tools.map((t) => t.name)).toEqual(["c", "d"]);
    const third = registry.list({ cursor: second.nextCursor! });
    expect(third).toEqual({ tools: [expect.objectContaining({ name: "e" })] });
  });

  it("rejects cursors it did not issue", () => {
    const registry = new ToolRegistry();
    registry.register(make("a"));
    for (const bad of [
      "garbage",
      "tb1:",
      "tb1:!!",
      `tb1:${Buffer.from("bad name!").toString("base64url")}`,
    ]) {
      expect(() => registry.list({ cursor: bad })).toThrow(InvalidCursorError);
    }
  });

  it("lists categories and filters by category", () => {
    const registry = new ToolRegistry();
    registry.registerAll([
      make("calculator", "math"),
      make("get_time", "time"),
      make("convert_time", "time"),
    ]);
    expect(registry.categories()).toEqual(["math", "time"]);
    expect(registry.list({ category: "time" }).tools.map((t) => t.name)).toEqual([
      "convert_time",
      "get_time",
    ]);
  });

  it("hides tools by allow/deny lists (with wildcards) without losing them", () => {
    const registry = new ToolRegistry({ deny: ["fs.*"] });
    registry.registerAll([make("fs.read"), make("fs.write"), make("calculator")]);
    expect(registry.names()).toEqual(["calculator"]);
    expect(registry.get("fs.read")).toBeUndefined();
    registry.setFilter({ allow: ["fs.*", "calculator"], deny: ["*.write"] });
    expect(registry.names()).toEqual(["calculator", "fs.read"]);
  });

  it("emits change events for the MCP list_changed notification", () => {
    const registry = new ToolRegistry();
    const changes: RegistryChange[] = [];
    const stop = registry.onChange((c) => changes.push(c));
    registry.register(make("a"));
    registry.unregister("a");
    registry.setFilter({ deny: ["x"] });
    stop();
    registry.register(make("b"));
    expect(changes).toEqual([
      { type: "registered", name: "a" },
      { type: "unregistered", name: "a" },
      { type: "filter-changed" },
    ]);
  });

  it("switches tools off apart from the allow/deny lists: hidden from lookups, still in management views", () => {
    const registry = new ToolRegistry({ deny: ["secret"], pageSize: 2 });
    registry.registerAll([make("a", "x"), make("b", "x"), make("c", "y"), make("secret", "x")]);
    const changes: RegistryChange[] = [];
    registry.onChange((c) => changes.push(c));
    const off = new Set(["b", "later"]);
    registry.setEnabled((name) => !off.has(name));
    expect(changes).toEqual([{ type: "filter-changed" }]);
    expect(registry.names()).toEqual(["a", "c"]);
    expect(registry.get("b")).toBeUndefined();
    expect(registry.get("b", { includeDisabled: true })?.tool.name).toBe("b");
    expect(registry.isEnabled("b")).toBe(false);
    // Denied stays denied in every view.
    expect(registry.get("secret", { includeDisabled: true })).toBeUndefined();
    expect(registry.definitions({ includeDisabled: true }).map((d) => d.tool.name)).toEqual(["a", "b", "c"]);
    const first = registry.list({ includeDisabled: true });
    expect(first.tools.map((t) => t.name)).toEqual(["a", "b"]);
    expect(
      registry.list({ includeDisabled: true, cursor: first.nextCursor! }).tools.map((t) => t.name),
    ).toEqual(["c"]);
    expect(registry.list({ category: "x" }).tools.map((t) => t.name)).toEqual(["a"]);
    // A tool registered later is covered by the predicate at once.
    registry.register(make("later"));
    expect(registry.has("later")).toBe(false);
    off.clear();
    registry.setEnabled((name) => !off.has(name));
    expect(registry.names()).toEqual(["a", "b", "c", "later"]);
  });
});
