import type { ProtocolId } from "./protocol-ids.js";
import { hasProtocol } from "./protocol-registry.js";

export interface DetectProtocolInput {
  /** Jinja source of the model's chat template (e.g. from GGUF metadata or tokenizer_config.json). */
  chatTemplate?: string;
  /** Model name or file name, e.g. `Qwen2.5-7B-Instruct-Q4_K_M.gguf`. */
  modelName?: string;
  /** Used when nothing matches (default `hermes`, the format most open models are tuned on). */
  fallback?: ProtocolId;
}

export interface DetectedProtocol {
  id: ProtocolId;
  source: "chat-template" | "model-name" | "default";
  /** Whether `getProtocol(id)` works today (some known formats are not implemented yet). */
  implemented: boolean;
}

/**
 * Template signatures, most specific first (several formats share tags: Qwen3-Coder and GLM use
 * `<tool_call>` too, so their own markers are checked before Hermes'). `tag_tool`, `json_tool_calls`,
 * `jsonl_events`, `node_llama_cpp_functionary` and `llamacpp_generic` belong to no model's template: they are
 * prompt-defined formats for any model, chosen by id or as the `fallback`.
 */
const TEMPLATE_RULES: readonly [ProtocolId, (t: string) => boolean][] = [
  ["gpt_oss_harmony", (t) => t.includes("<|channel|>") && t.includes("<|start|>")],
  ["minimax_m2", (t) => t.includes("<minimax:tool_call>")],
  // Issue 17's formats: each model's own special tokens or tool-prompt wording (sources in the format files).
  ["gemma4", (t) => t.includes("<|tool_call>") || t.includes("<|tool>")],
  ["functiongemma", (t) => t.includes("<start_function_call>") || t.includes("<start_function_declaration>")],
  ["seed_oss", (t) => t.includes("<seed:tool_call>")],
  ["deepseek_v3_2", (t) => t.includes("｜DSML｜")],
  ["nemotron_nano_v2", (t) => t.includes("<TOOLCALL>")],
  ["lfm2", (t) => t.includes("<|tool_call_start|>")],
  ["apertus", (t) => t.includes("<|tools_prefix|>")],
  ["xlam", (t) => t.includes("make calls in a single JSON array")],
  ["kimi_k2", (t) => t.includes("<|tool_calls_section_begin|>")],
  ["deepseek_r1", (t) => t.includes("<｜tool▁calls▁begin｜>") && t.includes("```json")],
  ["deepseek_v3_1", (t) => t.includes("<｜tool▁calls▁begin｜>")],
  ["command_r7b", (t) => t.includes("<|START_ACTION|>")],
  ["mistral_v11", (t) => t.includes("[TOOL_CALLS]") && t.includes("[ARGS]")],
  ["mistral_v3", (t) => t.includes("[TOOL_CALLS]")],
  ["functionary_v3_2", (t) => t.includes(">>>all") || (t.includes(">>>") && t.includes("functions."))],
  ["functionary_v3_1", (t) => t.includes("<function=") && t.includes("<|python_tag|>")],
  // Phi-4-mini lists tools in `<|tool|>…<|/tool|>`; its vLLM/Ollama templates borrow FireFunction's `functools[`
  // prompt word for word, so Phi's `<|end|>` token is what tells the two apart.
  [
    "phi4_mini",
    (t) =>
      t.includes("<|tool|>") ||
      (t.includes("<|tool_call|>") && t.includes("<|/tool_call|>")) ||
      (t.includes("functools[") && t.includes("<|end|>")),
  ],
  ["firefunction_v2", (t) => t.includes(" functools[")],
  ["glm45", (t) => t.includes("<arg_key>")],
  ["qwen3_coder_xml", (t) => t.includes("<tool_call>") && t.includes("<function=")],
  ["granite", (t) => t.includes("<|tool_call|>") && t.includes("<|start_of_role|>")],
  ["hermes", (t) => t.includes("<tool_call>")],
  ["pythonic", (t) => t.includes("[func_name1(") || t.includes("<|python_start|>")],
  // Llama 3.1 / 3.3 write built-in tool calls (`brave_search.call(…)`, code) after `<|python_tag|>`; Llama 3.2's
  // template has the `ipython` role for results but neither the tag nor `builtin_tools` (as llama.cpp tells them).
  [
    "llama3_builtin",
    (t) => t.includes("<|start_header_id|>") && (t.includes("<|python_tag|>") || t.includes("builtin_tools")),
  ],
  ["llama3_json", (t) => t.includes("<|start_header_id|>") && t.includes("ipython")],
  // Google's Gemma 3 function-calling prompt, JSON variant: `{"name": function name, "parameters": dictionary of
  // argument name and its value}` (Llama 3's prompt shares the wording, but not `<start_of_turn>`).
  ["gemma3_json", (t) => t.includes("<start_of_turn>") && t.includes("dictionary of argument name")],
  ["gemma3_tool_code", (t) => t.includes("<start_of_turn>") && t.includes("tool_code")],
];

const NAME_RULES: readonly [ProtocolId, RegExp][] = [
  // Nous' Hermes fine-tunes keep `<tool_call>` whatever their base (Hermes-3-Llama-3.1, Nous-Hermes-2-Mistral).
  ["hermes", /hermes|nous/],
  ["gpt_oss_harmony", /gpt-?oss/],
  ["qwen3_coder_xml", /qwen3-?coder/],
  ["minimax_m2", /minimax-?m2/],
  ["kimi_k2", /kimi-?k2/],
  ["glm45", /glm-?4\.[5-7]/],
  // DeepSeek V3.2-Exp kept V3.1's call tokens; V3.2 (final) calls tools in DSML.
  ["deepseek_v3_1", /deepseek-?v3\.(1|2-?exp)/],
  ["deepseek_v3_2", /deepseek-?v3\.2/],
  ["deepseek_r1", /deepseek-?r1/],
  ["command_r7b", /command-?r7b/],
  ["functiongemma", /function-?gemma/],
  ["gemma4", /gemma-?4/],
  ["seed_oss", /seed-?oss/],
  ["nemotron_nano_v2", /nemotron-?nano.*v2/],
  ["lfm2", /lfm-?2/],
  ["apertus", /apertus/],
  ["xlam", /xlam/],
  ["hunyuan_a13b", /hunyuan-?a13b/],
  ["ernie45", /ernie-?4\.5/],
  ["mistral_v11", /magistral|devstral|mistral-small-3\.[12]|ministral-?3/],
  ["mistral_v3", /mistral|mixtral|ministral|codestral/],
  ["functionary_v3_1", /functionary.*v3\.1/],
  ["functionary_v3_2", /functionary/],
  ["firefunction_v2", /firefunction/],
  ["phi4_mini", /phi-?4-?mini/],
  ["granite", /granite/],
  ["gemma3_tool_code", /gemma-?3/],
  ["pythonic", /llama-?4|llama-?3\.2-?[13]b/],
  ["llama3_json", /llama-?3/],
  ["hermes", /qwen/],
];

/** Picks the format for a model from its chat template, else its name, else the fallback. */
export function detectProtocol(input: DetectProtocolInput = {}): DetectedProtocol {
  const result = (id: ProtocolId, source: DetectedProtocol["source"]): DetectedProtocol => ({
    id,
    source,
    implemented: hasProtocol(id),
  });
  const t = input.chatTemplate;
  if (t) {
    for (const [id, test] of TEMPLATE_RULES) if (test(t)) return result(id, "chat-template");
  }
  const name = input.modelName?.toLowerCase().replace(/[_\s]+/g, "-");
  if (name) {
    for (const [id, re] of NAME_RULES) if (re.test(name)) return result(id, "model-name");
  }
  return result(input.fallback ?? "hermes", "default");
}
