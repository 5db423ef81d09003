import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { AgentMessage } from "../core/agent-message.js";
import { withCompactCatalogue } from "../protocols/compact-catalogue.js";
import type { ToolCallProtocol } from "../protocols/protocol.js";

/**
 * GGUF metadata keys the bundled model carries so that `toolbridge run` renders prompts exactly as in training:
 * `toolbridge.protocol` (a protocol id) and `toolbridge.catalogue` (`compact`: the one-line-per-tool catalogue of
 * src/protocols/compact-catalogue.ts instead of the protocol's full JSON-schema one).
 */
export const MODEL_PROTOCOL_KEY = "toolbridge.protocol";
export const MODEL_CATALOGUE_KEY = "toolbridge.catalogue";
/** Default sampling temperature: the demo model is tiny and only reliable greedy. */
export const MODEL_TEMPERATURE_KEY = "toolbridge.temperature";
/**
 * `last-requests:N` (`last-request` for N = 1): the model was trained on conversations of at most N requests and is
 * shown only the latest N, each with its calls, results and answer (the transcript keeps everything). A small model
 * shown more than it was trained on loses track of which question is the new one; N = 2 keeps the previous exchange
 * a follow-up needs ("and what about 20%?").
 */
export const MODEL_HISTORY_KEY = "toolbridge.history";

/** Requests of a chat the bundled model is shown (see MODEL_HISTORY_KEY). */
export const BUNDLED_MODEL_HISTORY_REQUESTS = 2;

export const BUNDLED_MODEL_METADATA = {
  [MODEL_PROTOCOL_KEY]: "hermes",
  [MODEL_CATALOGUE_KEY]: "compact",
  [MODEL_TEMPERATURE_KEY]: "0",
  [MODEL_HISTORY_KEY]: `last-requests:${BUNDLED_MODEL_HISTORY_REQUESTS}`,
} as const;

/**
 * The tools of the demo model's training catalogue, in the registry's (sorted) order: the dataset builder
 * (scripts/train/build-dataset.ts) checks it trains on exactly these, and `toolbridge run` offers only these to the
 * demo model by default (src/cli/default-model.ts says why).
 */
export const BUNDLED_MODEL_TOOLS = [
  "calculator",
  "convert_time",
  "get_time",
  "memory_search",
  "note_save",
  "roll_dice",
  "time_difference",
] as const;

export interface ModelHints {
  protocol?: string;
  catalogue?: "compact";
  temperature?: number;
  /** The model is shown only the latest this many requests of a conversation. */
  history?: number;
}

/**
 * The toolbridge hints in a GGUF's metadata, as node-llama-cpp parses it (`fileInfo.metadata`, where dotted keys
 * become nested objects) or as flat `key: value` pairs.
 */
export function readModelHints(metadata: unknown): ModelHints {
  if (typeof metadata !== "object" || metadata === null) return {};
  const flat = metadata as Record<string, unknown>;
  const nested = (flat.toolbridge ?? {}) as Record<string, unknown>;
  const get = (key: string) => flat[key] ?? nested[key.slice("toolbridge.".length)];
  const hints: ModelHints = {};
  const protocol = get(MODEL_PROTOCOL_KEY);
  if (typeof protocol === "string" && protocol) hints.protocol = protocol;
  if (get(MODEL_CATALOGUE_KEY) === "compact") hints.catalogue = "compact";
  const temperature = Number(get(MODEL_TEMPERATURE_KEY));
  if (get(MODEL_TEMPERATURE_KEY) !== undefined && Number.isFinite(temperature) && temperature >= 0)
    hints.temperature = temperature;
  const history = get(MODEL_HISTORY_KEY);
  if (history === "last-request") hints.history = 1;
  const requests = typeof history === "string" ? /^last-requests:([1-9]\d{0,2})$/.exec(history) : null;
  if (requests) hints.history = Number(requests[1]);
  return hints;
}

/**
 * The messages a `last-requests:N` model is shown: system messages, then everything from the N-th last user message
 * on (those requests, with the calls, results and answers that followed each).
 */
export function lastRequests(messages: readonly AgentMessage[], requests: number): AgentMessage[] {
  let start = messages.length;
  for (let seen = 0; seen < requests; ) {
    const at = messages.slice(0, start).findLastIndex((m) => m.role === "user");
    if (at < 0) break;
    start = at;
    seen++;
  }
  if (start <= 0 || start === messages.length) return [...messages];
  return [...messages.slice(0, start).filter((m) => m.role === "system"), ...messages.slice(start)];
}

/** The latest request only (`last-request`). */
export function lastRequestOnly(messages: readonly AgentMessage[]): AgentMessage[] {
  return lastRequests(messages, 1);
}

/**
 * The hints in a GGUF file's header, read without loading the model (node-llama-cpp reads only the metadata). A file
 * that cannot be read gives no hints: loading it reports the problem properly.
 */
export async function readGgufModelHints(file: string): Promise<ModelHints> {
  try {
    const { readGgufFileInfo } = await import("node-llama-cpp");
    const info = await readGgufFileInfo(file, { readTensorInfo: false, logWarnings: false });
    return readModelHints(info.metadata);
  } catch {
    return {};
  }
}

/**
 * A model that names its tool-call protocol in its metadata was trained on that text protocol, not on a native
 * function-calling template: run it in text mode unless the caller chose a mode. Wherever the file comes from (the
 * default, `--model <path>`, a config file, a library caller) it then behaves the same.
 */
export function modeFromHints(
  mode: "native" | "text" | undefined,
  hints: ModelHints,
): "native" | "text" | undefined {
  if (mode !== undefined) return mode;
  return hints.protocol !== undefined ? "text" : undefined;
}

export const BUNDLED_MODEL_FILE = "toolbridge-demo.gguf";

/**
 * The small demo model shipped in the package's models/ folder (trained by `npm run train-model`): the default when
 * no model is configured. The path is the same from src/ (tsx, tests) and dist/ (the built CLI): both sit two levels
 * below the package root.
 */
export function bundledModelPath(): string {
  return fileURLToPath(new URL(`../../models/${BUNDLED_MODEL_FILE}`, import.meta.url));
}

export function hasBundledModel(): boolean {
  return existsSync(bundledModelPath());
}

/** `protocol` with the catalogue style the model's hints ask for (the compact one, or unchanged). */
export function applyCatalogueHint(protocol: ToolCallProtocol, hints: ModelHints): ToolCallProtocol {
  return hints.catalogue === "compact" ? withCompactCatalogue(protocol) : protocol;
}
