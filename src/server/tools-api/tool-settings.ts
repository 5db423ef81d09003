import type { ToolSetting, ToolSettingsStore } from "../../store/tool-settings-store.js";
import {
  type ApprovalPolicy,
  type ApprovalPolicyConfig,
  resolveApprovalPolicy,
} from "../../tools/approval-policy.js";
import type { AnyToolDefinition } from "../../tools/tool-definition.js";
import { isValidToolName } from "../../tools/tool-name.js";
import type { ToolRegistry } from "../../tools/tool-registry.js";

const POLICIES: readonly ApprovalPolicy[] = ["always", "ask", "never"];

/** A change to one tool's settings. `null` resets a field to what the config says. */
export interface ToolSettingsPatch {
  enabled?: boolean | null;
  policy?: ApprovalPolicy | null;
}

export interface ToolSettingsOptions {
  registry: ToolRegistry;
  store: ToolSettingsStore;
  /** Policies from the config (`mcp.approvals`); a setting made through the API wins over them. */
  configuredPolicies?: Readonly<Record<string, ApprovalPolicy>> | undefined;
  now?: () => Date;
  /** Told about stored settings that cannot be used (a corrupt or unknown value), which are then ignored. */
  warn?: ((message: string) => void) | undefined;
}

/**
 * A stored setting as far as it can be trusted: a value outside the schema (a database written by another version or
 * by hand) is dropped field by field with a warning naming the tool and how to fix it, so one bad row neither crashes
 * a command nor is read as something it does not say. The other field of the row still applies.
 */
export function usableToolSetting(
  stored: ToolSetting,
  warn: (message: string) => void,
): ToolSetting | undefined {
  const raw = stored as { name: unknown; enabled?: unknown; policy?: unknown; updatedAt: unknown };
  if (!isValidToolName(raw.name)) {
    warn(
      `ignoring a stored tool setting for ${JSON.stringify(raw.name)}: that is not a tool name (table tool_settings).`,
    );
    return undefined;
  }
  const setting: ToolSetting = { name: raw.name, updatedAt: String(raw.updatedAt) };
  const fix = `reset it with PATCH /api/tools/${raw.name} {"enabled": null, "policy": null} on \`toolbridge serve\``;
  if (raw.enabled !== undefined) {
    if (typeof raw.enabled === "boolean") setting.enabled = raw.enabled;
    else
      warn(
        `ignoring the stored "enabled" of tool ${raw.name}: ${JSON.stringify(raw.enabled)} is not true or false; ${fix}.`,
      );
  }
  if (raw.policy !== undefined) {
    if (POLICIES.includes(raw.policy as ApprovalPolicy)) setting.policy = raw.policy as ApprovalPolicy;
    else
      warn(
        `ignoring the stored policy of tool ${raw.name}: ${JSON.stringify(raw.policy)} is not "always", "ask" or "never", so its configured policy applies; ${fix}.`,
      );
  }
  return setting.enabled === undefined && setting.policy === undefined ? undefined : setting;
}

/**
 * The settings a person made for tools (on/off, approval policy), applied to everything the server offers at once:
 * a switched-off tool is hidden through the registry (so agents, the executor and /mcp stop offering it and registry
 * listeners — MCP `list_changed`, the WebSocket API — hear about it), and `approval` is asked at every call, so a
 * changed policy governs the next call of any run and MCP approvals alike. Settings are loaded once at start and
 * written through to the store before they take effect.
 */
export class ToolSettings {
  readonly #registry: ToolRegistry;
  readonly #store: ToolSettingsStore;
  readonly #configured: Readonly<Record<string, ApprovalPolicy>>;
  readonly #now: () => Date;
  readonly #warn: (message: string) => void;
  #settings = new Map<string, ToolSetting>();
  /** Changes are applied one at a time, so two PATCHes of one tool cannot interleave their read and write. */
  #queue: Promise<unknown> = Promise.resolve();

  private constructor(options: ToolSettingsOptions) {
    this.#registry = options.registry;
    this.#store = options.store;
    this.#configured = options.configuredPolicies ?? {};
    this.#now = options.now ?? (() => new Date());
    this.#warn = options.warn ?? (() => {});
  }

  /** Load the stored settings and apply them to the registry (also to tools that are not registered yet). */
  static async load(options: ToolSettingsOptions): Promise<ToolSettings> {
    const settings = new ToolSettings(options);
    settings.#settings = await settings.#read();
    settings.#apply();
    return settings;
  }

  /**
   * Read the store again and apply what changed: settings made by another process on the same database (a `serve`
   * while `toolbridge mcp` runs) take effect here too. Queued behind changes made here. True when anything changed.
   */
  reload(): Promise<boolean> {
    const run = this.#queue.then(async () => {
      const next = await this.#read();
      const key = (map: Map<string, ToolSetting>) =>
        JSON.stringify([...map.values()].map(({ name, enabled, policy }) => [name, enabled, policy]));
      if (key(next) === key(this.#settings)) return false;
      this.#settings = next;
      this.#apply();
      return true;
    });
    this.#queue = run.catch(() => {});
    return run;
  }

  async #read(): Promise<Map<string, ToolSetting>> {
    const settings = new Map<string, ToolSetting>();
    for (const stored of await this.#store.list()) {
      const setting = usableToolSetting(stored, this.#warn);
      if (setting) settings.set(setting.name, setting);
    }
    return settings;
  }

  /** The approval policy config for agents and MCP approvals: the setting, else the configured one, else the default. */
  readonly approval: ApprovalPolicyConfig = (call) => this.policyOf(call.name);

  /** The policy set for a tool — through the API, else in the config — or undefined: its annotations decide. */
  policyOf(name: string): ApprovalPolicy | undefined {
    return this.#settings.get(name)?.policy ?? this.#configured[name];
  }

  /** The policy a call of this tool gets now (what the API shows; the call gate resolves it the same way). */
  effectivePolicy(definition: AnyToolDefinition): ApprovalPolicy {
    return resolveApprovalPolicy(this.approval, { name: definition.tool.name, arguments: {} }, definition);
  }

  /**
   * Where the effective policy comes from: `setting` (made through the Tools API, e.g. "always allow" in the web UI;
   * revocable there), `config` (`mcp.approvals` in the config file), or `default` (ask for tools that require
   * approval — destructive or open-world ones — else always).
   */
  policySource(definition: AnyToolDefinition): "setting" | "config" | "default" {
    const name = definition.tool.name;
    if (this.#settings.get(name)?.policy !== undefined) return "setting";
    if (this.#configured[name] !== undefined) return "config";
    return "default";
  }

  /** The policy without any setting made through the API: what `policy: null` goes back to. */
  configuredPolicy(definition: AnyToolDefinition): ApprovalPolicy {
    return resolveApprovalPolicy(this.#configured, { name: definition.tool.name, arguments: {} }, definition);
  }

  enabled(name: string): boolean {
    return this.#settings.get(name)?.enabled !== false;
  }

  get(name: string): ToolSetting | undefined {
    const setting = this.#settings.get(name);
    return setting ? { ...setting } : undefined;
  }

  list(): ToolSetting[] {
    return [...this.#settings.values()].map((setting) => ({ ...setting }));
  }

  /** Apply a change: stored first (nothing changes when that fails), then in effect everywhere. */
  update(name: string, patch: ToolSettingsPatch): Promise<ToolSetting> {
    const run = this.#queue.then(async () => {
      const current = this.#settings.get(name);
      const next: ToolSetting = { name, updatedAt: this.#now().toISOString() };
      const enabled = "enabled" in patch ? patch.enabled : current?.enabled;
      const policy = "policy" in patch ? patch.policy : current?.policy;
      if (enabled !== undefined && enabled !== null) next.enabled = enabled;
      if (policy !== undefined && policy !== null) next.policy = policy;
      await this.#store.put(next);
      if (next.enabled === undefined && next.policy === undefined) this.#settings.delete(name);
      else this.#settings.set(name, next);
      this.#apply();
      return { ...next };
    });
    this.#queue = run.catch(() => {});
    return run;
  }

  /** A new predicate each time: the registry's `filter-changed` tells /mcp and WebSocket clients to list again. */
  #apply(): void {
    const settings = this.#settings;
    this.#registry.setEnabled((name) => settings.get(name)?.enabled !== false);
  }
}
