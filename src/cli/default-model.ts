import { realpathSync } from "node:fs";
import { BUNDLED_MODEL_TOOLS, bundledModelPath, hasBundledModel } from "../models/bundled-model.js";
import type { ModelSettings } from "./model-settings.js";

/** Said once per command, on stderr (stdout may carry --json output). */
export const BUNDLED_MODEL_NOTICE =
  "Using the bundled demo model (models/toolbridge-demo.gguf, 10.2M parameters, trained to call the built-in " +
  "tools offline; it is a demo, not an assistant). For real work point toolbridge at a real model: " +
  "--model <file.gguf>, --base-url <url> --model-name <name> (OpenAI-compatible; add --api completions for " +
  "/v1/completions servers), or --anthropic.";

/**
 * BUNDLED_MODEL_TOOLS (kept in src/models/bundled-model.ts, shared with the dataset builder) are the tools of the demo
 * model's training catalogue. Any other tool (filesystem, web search, MCP servers, --tools-module) is one it never saw:
 * offered one, it picks a wrong tool or makes up an answer, and the catalogue it reads is no longer the one it learnt.
 * So by default it is offered these only, in the order of its training catalogue (the first generation, which never
 * called convert_time or time_difference, measured 10 points worse on exact arguments with those two left out: the
 * catalogue it reads must be the one it learnt).
 */
export { BUNDLED_MODEL_TOOLS };

/** Requests the demo model handles well, for the chat banner and the README. */
export const BUNDLED_MODEL_EXAMPLES = [
  "what is 15% of 47.50?",
  "roll 2d6+3",
  "what time is it in Tokyo?",
  "how many days until christmas?",
] as const;

/**
 * The model `run` and `chat` use when no flag, environment variable or config names one: the bundled offline demo
 * model, in text-protocol mode (its GGUF metadata names the protocol and compact catalogue it was trained with).
 */
export function defaultModelSettings(): ModelSettings | undefined {
  if (!hasBundledModel()) return undefined;
  process.stderr.write(`toolbridge: ${BUNDLED_MODEL_NOTICE}\n`);
  return { provider: "llama", path: bundledModelPath(), nativeTools: false };
}

function realpath(file: string): string | undefined {
  try {
    return realpathSync(file);
  } catch {
    return undefined;
  }
}

/** Whether these settings run the bundled demo model, by default or named by any path to the same file. */
export function isBundledModel(settings: ModelSettings): boolean {
  if (settings.provider !== "llama" || settings.path === undefined) return false;
  const file = realpath(settings.path);
  return file !== undefined && file === realpath(bundledModelPath());
}

/**
 * What the chat banner says about the demo model: the requests it understands, three example prompts, and (when the
 * user gave no allow list of their own) that only the tools it was trained on are offered.
 */
export function bundledModelIntro(restricted: boolean): string {
  const examples = BUNDLED_MODEL_EXAMPLES.map((e) => `"${e}"`).join(", ");
  const intro =
    "The demo model was trained on arithmetic, dice rolls, the time in a place, converting a time between places, " +
    `days between dates, and saving and searching notes. Try ${examples}.`;
  if (!restricted) return intro;
  return `${intro} Tools it was not trained with are not offered to it; --allow <tools> offers them.`;
}
