import { describe, expect, it } from "vitest";
import { InMemoryToolSettingsStore } from "../../store/in-memory-tool-settings-store.js";
import type { ToolSetting } from "../../store/tool-settings-store.js";
import { resolveApprovalPolicy } from "../../tools/approval-policy.js";
import { defineTool } from "../../tools/define-tool.js";
import { ToolRegistry } from "../../tools/tool-registry.js";
import { ToolSettings } from "./tool-settings.js";

const tool = (name: string, destructive = false) =>
  defineTool({
    name,
    inputSchema: { type: "object" },
    ...(destructive ? { annotations: { destructiveHint: true } } : {}),
    handler: () => name,
  });

describe("ToolSettings", () => {
  it("layers policies: a setting over the config over the tool's default", async () => {
    const registry = new ToolRegistry();
    registry.registerAll([tool("read"), tool("wipe", true), tool("mail")]);
    const settings = await ToolSettings.load({
      registry,
      store: new InMemoryToolSettingsStore(),
      configuredPolicies: { mail: "ask" },
    });
    const policy = (name: string) =>
      resolveApprovalPolicy(settings.approval, { name, arguments: {} }, registry.get(name)!);
    expect([policy("read"), policy("wipe"), policy("mail")]).toEqual(["always", "ask", "ask"]);
    await settings.update("mail", { policy: "always" });
    await settings.update("wipe", { policy: "never" });
    expect([policy("read"), policy("wipe"), policy("mail")]).toEqual(["always", "never", "always"]);
    await settings.update("mail", { policy: null });
    expect(policy("mail")).toBe("ask");
  });

  it("changes nothing when the store refuses the write", async () => {
    const registry = new ToolRegistry();
    registry.register(tool("read"));
    const failing = new InMemoryToolSettingsStore();
    failing.put = async (_setting: ToolSetting) => {
      throw new Error("disk full");
    };
    const settings = await ToolSettings.load({ registry, store: failing });
    await expect(settings.update("read", { enabled: false })).rejects.toThrow("disk full");
    expect(registry.has("read")).toBe(true);
    expect(settings.get("read")).toBeUndefined();
    // The queue is not stuck after a failure.
    failing.put = InMemoryToolSettingsStore.prototype.put;
    await settings.update("read", { enabled: false });
    expect(registry.has("read")).toBe(false);
  });

  it("applies stored settings at load, also for tools registered later", async () => {
    const store = new InMemoryToolSettingsStore();
    await store.put({ name: "srv.tool", enabled: false, updatedAt: "2026-01-01T00:00:00.000Z" });
    const registry = new ToolRegistry();
    await ToolSettings.load({ registry, store });
    registry.register(tool("srv.tool"));
    expect(registry.has("srv.tool")).toBe(false);
    expect(registry.get("srv.tool", { includeDisabled: true })).toBeDefined();
  });

  it("ignores unusable stored values field by field, with a warning, and follows changes made by another writer", async () => {
    const store = new InMemoryToolSettingsStore();
    await store.put({ name: "read", enabled: false, policy: "maybe" as never, updatedAt: "t" });
    await store.put({ name: "wipe", enabled: 7 as never, updatedAt: "t" });
    const registry = new ToolRegistry();
    registry.registerAll([tool("read"), tool("wipe", true)]);
    const warnings: string[] = [];
    const settings = await ToolSettings.load({ registry, store, warn: (line) => warnings.push(line) });
    expect(warnings).toEqual([
      expect.stringMatching(/policy of tool read: "maybe" is not "always", "ask" or "never"/),
      expect.stringMatching(/"enabled" of tool wipe: 7 is not true or false/),
    ]);
    expect(registry.has("read")).toBe(false);
    expect(registry.has("wipe")).toBe(true);
    expect(settings.effectivePolicy(registry.get("wipe")!)).toBe("ask");
    await store.put({ name: "wipe", policy: "never", updatedAt: "t" });
    expect(await settings.reload()).toBe(true);
    expect(settings.effectivePolicy(registry.get("wipe")!)).toBe("never");
    expect(await settings.reload()).toBe(false);
  });
});
