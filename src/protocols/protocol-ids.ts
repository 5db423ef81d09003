/** Every format id toolbridge knows (issue 3). */
export const KNOWN_PROTOCOL_IDS = [
  "tag_tool",
  "json_tool_calls",
  "jsonl_events",
  "hermes",
  "qwen3_coder_xml",
  "llama3_json",
  "llama3_builtin",
  "pythonic",
  "gemma3_tool_code",
  "gemma3_json",
  "mistral_v3",
  "mistral_v11",
  "functionary_v3_1",
  "functionary_v3_2",
  "firefunction_v2",
  "phi4_mini",
  "command_r7b",
  "deepseek_r1",
  "deepseek_v3_1",
  "granite",
  "gpt_oss_harmony",
  "kimi_k2",
  "glm45",
  "minimax_m2",
  "node_llama_cpp_functionary",
  "llamacpp_generic",
  "nemotron_nano_v2",
  "xlam",
  "apertus",
  "hunyuan_a13b",
  "ernie45",
  "seed_oss",
  "deepseek_v3_2",
  "lfm2",
  "gemma4",
  "functiongemma",
] as const;

export type ProtocolId = (typeof KNOWN_PROTOCOL_IDS)[number];

/**
 * NOT YET IMPLEMENTED — known ids whose format file has not been written. `getProtocol` throws
 * `ProtocolNotImplementedError` for them. Remove an id from this list when its format lands in `formats/index.ts`.
 */
export const PLANNED_PROTOCOL_IDS: readonly ProtocolId[] = [];
