import type { ToolSetting, ToolSettingsStore } from "./tool-settings-store.js";

/** Tool settings for this process only (library use and tests without a database). */
export class InMemoryToolSettingsStore implements ToolSettingsStore {
  readonly #settings = new Map<string, ToolSetting>();

  async list(): Promise<ToolSetting[]> {
    return [...this.#settings.values()]
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((setting) => ({ ...setting }));
  }

  async get(name: string): Promise<ToolSetting | undefined> {
    const setting = this.#settings.get(name);
    return setting ? { ...setting } : undefined;
  }

  async put(setting: ToolSetting): Promise<void> {
    if (setting.enabled === undefined && setting.policy === undefined) this.#settings.delete(setting.name);
    else this.#settings.set(setting.name, { ...setting });
  }
}
