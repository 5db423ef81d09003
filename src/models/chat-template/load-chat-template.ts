import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { ModelConfigError } from "../model-errors.js";
import {
  BUILTIN_CHAT_TEMPLATE_NAMES,
  BUILTIN_CHAT_TEMPLATES,
  resolveBuiltinChatTemplateName,
} from "./builtin-chat-templates.js";
import { ChatTemplate, ChatTemplateError } from "./chat-template.js";

/** Where a chat template comes from. */
export type ChatTemplateSource =
  /** A built-in template by name: `chatml`, `qwen2.5`, `qwen3`, `llama3`, `mistral`, `gemma` (aliases accepted). */
  | { builtin: string }
  /** Jinja source given directly. */
  | { template: string; name?: string; bosToken?: string; eosToken?: string }
  /**
   * A Hugging Face `tokenizer_config.json` (path or parsed object). A path's directory is also searched for
   * `chat_template.jinja`, where newer repositories keep the template. `variant` picks a named template
   * (`tool_use`, `default`) when the file has several.
   */
  | { tokenizerConfig: string | Record<string, unknown>; variant?: string }
  /** A GGUF file's `tokenizer.chat_template` metadata. */
  | { gguf: string };

export function builtinChatTemplate(name: string): ChatTemplate {
  const resolved = resolveBuiltinChatTemplateName(name);
  if (!resolved) {
    throw new ChatTemplateError(
      `There is no built-in chat template "${name}". Built-in: ${BUILTIN_CHAT_TEMPLATE_NAMES.join(", ")}; or pass the model's tokenizer_config.json or GGUF.`,
    );
  }
  const t = BUILTIN_CHAT_TEMPLATES[resolved];
  // Written without BOS text: the server adds BOS when it tokenizes (see ChatTemplateOptions.bosToken).
  return new ChatTemplate(t.template, { name: resolved, eosToken: t.eosToken });
}

function tokenText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (value && typeof value === "object" && typeof (value as { content?: unknown }).content === "string") {
    return (value as { content: string }).content;
  }
  return undefined;
}

function fromTokenizerConfig(
  config: Record<string, unknown>,
  where: string,
  dir: string | undefined,
  variant?: string,
): ChatTemplate {
  let template: string | undefined;
  const raw = config.chat_template;
  if (typeof raw === "string") template = raw;
  else if (Array.isArray(raw)) {
    const named = raw.filter(
      (t): t is { name: string; template: string } =>
        typeof t?.name === "string" && typeof t?.template === "string",
    );
    const pick = named.find((t) => t.name === (variant ?? "default")) ?? (variant ? undefined : named[0]);
    if (!pick) {
      throw new ChatTemplateError(
        `${where} has no chat template named "${variant}"; it has: ${named.map((t) => t.name).join(", ")}.`,
      );
    }
    template = pick.template;
  }
  if (template === undefined && dir && existsSync(path.join(dir, "chat_template.jinja"))) {
    template = readFileSync(path.join(dir, "chat_template.jinja"), "utf8");
  }
  if (template === undefined) {
    throw new ChatTemplateError(
      `${where} has no "chat_template" (and no chat_template.jinja beside it). Pick a built-in template instead, e.g. { builtin: "chatml" }.`,
    );
  }
  const eos = tokenText(config.eos_token);
  return new ChatTemplate(template, { name: where, ...(eos ? { eosToken: eos } : {}) });
}

/** Load a chat template from a built-in name, Jinja source, a tokenizer_config.json or a GGUF's metadata. */
export async function loadChatTemplate(source: ChatTemplateSource): Promise<ChatTemplate> {
  if ("builtin" in source) return builtinChatTemplate(source.builtin);
  if ("template" in source) {
    return new ChatTemplate(source.template, {
      name: source.name ?? "custom template",
      ...(source.bosToken !== undefined ? { bosToken: source.bosToken } : {}),
      ...(source.eosToken !== undefined ? { eosToken: source.eosToken } : {}),
    });
  }
  if ("tokenizerConfig" in source) {
    const c = source.tokenizerConfig;
    if (typeof c !== "string")
      return fromTokenizerConfig(c, "tokenizer_config.json", undefined, source.variant);
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(c, "utf8"));
    } catch (error) {
      throw new ModelConfigError(`Cannot read the tokenizer config ${c}: ${(error as Error).message}`);
    }
    if (!parsed || typeof parsed !== "object") throw new ModelConfigError(`${c} is not a JSON object.`);
    return fromTokenizerConfig(parsed as Record<string, unknown>, c, path.dirname(c), source.variant);
  }
  const file = source.gguf;
  if (!existsSync(file)) throw new ModelConfigError(`GGUF file not found: ${file}`);
  // node-llama-cpp is heavy; only a GGUF source needs its metadata reader.
  const { readGgufFileInfo } = await import("node-llama-cpp");
  const info = await readGgufFileInfo(file, { readTensorInfo: false });
  const tokenizer = info.metadata.tokenizer as
    | { chat_template?: string; ggml?: { tokens?: readonly string[]; eos_token_id?: number } }
    | undefined;
  const template = tokenizer?.chat_template;
  if (typeof template !== "string") {
    throw new ChatTemplateError(
      `${file} has no tokenizer.chat_template metadata. Pick a built-in template instead, e.g. { builtin: "chatml" }.`,
    );
  }
  const eosId = tokenizer?.ggml?.eos_token_id;
  const eos = eosId === undefined ? undefined : tokenizer?.ggml?.tokens?.[eosId];
  return new ChatTemplate(template, { name: path.basename(file), ...(eos ? { eosToken: eos } : {}) });
}
