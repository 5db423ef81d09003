import type { ApprovalPolicyValue } from "../core/run-status.js";

/**
 * A person's settings for one tool, made through the server (`PATCH /api/tools/{name}`). A field left out means "as
 * configured": the tool is on, and its policy comes from the config or the tool's own default.
 */
export interface ToolSetting {
  name: string;
  enabled?: boolean;
  policy?: ApprovalPolicyValue;
  /** ISO time of the last change. */
  updatedAt: string;
}

/**
 * Where tool settings are kept. Keyed by tool name, not by registered tool: a setting for a tool that is not there
 * (a mounted server still connecting, or gone) is kept and applies when the tool appears.
 */
export interface ToolSettingsStore {
  /** Every stored setting, sorted by name. */
  list(): Promise<ToolSetting[]>;
  get(name: string): Promise<ToolSetting | undefined>;
  /** Insert or replace the setting of `setting.name`; one with neither `enabled` nor `policy` is deleted instead. */
  put(setting: ToolSetting): Promise<void>;
  /**
   * Stores several instances share (PostgreSQL) tell of changes any of them made: `changed()` soon after. A hint only;
   * readers re-read now and then as well. Returns the function that stops it.
   */
  watch?(changed: () => void): () => void;
}
