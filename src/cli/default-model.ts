import type { ModelSettings } from "./model-options.js";

/**
 * The model `run` and `chat` use when no flag, environment variable or config names one. None yet: the bundled
 * offline demo model (issue 7) plugs in here, returning its settings (and telling the user once what it is).
 */
export function defaultModelSettings(): ModelSettings | undefined {
  return undefined;
}
