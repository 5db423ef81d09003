import { bundledModelPath, hasBundledModel } from "../models/bundled-model.js";
import type { ModelSettings } from "./model-options.js";

/** Said once per command, on stderr (stdout may carry --json output). */
export const BUNDLED_MODEL_NOTICE =
  "Using the bundled demo model (models/toolbridge-demo.gguf, 0.7M parameters, trained to call the built-in " +
  "tools offline; it is a demo, not an assistant). For real work point toolbridge at a real model: " +
  "--model <file.gguf>, --base-url <url> --model-name <name> (OpenAI-compatible; add --api completions for " +
  "/v1/completions servers), or --anthropic.";

/**
 * The model `run` and `chat` use when no flag, environment variable or config names one: the bundled offline demo
 * model, in text-protocol mode (its GGUF metadata names the protocol and compact catalogue it was trained with).
 */
export function defaultModelSettings(): ModelSettings | undefined {
  if (!hasBundledModel()) return undefined;
  process.stderr.write(`toolbridge: ${BUNDLED_MODEL_NOTICE}\n`);
  return { provider: "llama", path: bundledModelPath(), nativeTools: false };
}
