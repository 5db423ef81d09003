import type { ToolCallProtocol } from "../protocol.js";
import { apertusProtocol } from "./apertus.js";
import { commandR7bProtocol } from "./command-r7b.js";
import { deepseekR1Protocol, deepseekV31Protocol } from "./deepseek.js";
import { deepseekV32Protocol } from "./deepseek-v3-2.js";
import { ernie45Protocol } from "./ernie45.js";
import { firefunctionV2Protocol } from "./firefunction-v2.js";
import { functionaryV31Protocol, functionaryV32Protocol } from "./functionary.js";
import { functionGemmaProtocol } from "./functiongemma.js";
import { gemma3JsonProtocol, gemma3ToolCodeProtocol } from "./gemma3.js";
import { gemma4Protocol } from "./gemma4.js";
import { glm45Protocol } from "./glm45.js";
import { gptOssHarmonyProtocol } from "./gpt-oss-harmony.js";
import { graniteProtocol } from "./granite.js";
import { hermesProtocol } from "./hermes.js";
import { hunyuanA13bProtocol } from "./hunyuan-a13b.js";
import { jsonToolCallsProtocol } from "./json-tool-calls.js";
import { jsonlEventsProtocol } from "./jsonl-events.js";
import { kimiK2Protocol } from "./kimi-k2.js";
import { lfm2Protocol } from "./lfm2.js";
import { llama3BuiltinProtocol } from "./llama3-builtin.js";
import { llama3JsonProtocol } from "./llama3-json.js";
import { llamacppGenericProtocol } from "./llamacpp-generic.js";
import { minimaxM2Protocol } from "./minimax-m2.js";
import { mistralV3Protocol, mistralV11Protocol } from "./mistral.js";
import { nemotronNanoV2Protocol } from "./nemotron-nano-v2.js";
import { nodeLlamaCppFunctionaryProtocol } from "./node-llama-cpp-functionary.js";
import { phi4MiniProtocol } from "./phi4-mini.js";
import { pythonicProtocol } from "./pythonic.js";
import { qwen3CoderXmlProtocol } from "./qwen3-coder-xml.js";
import { seedOssProtocol } from "./seed-oss.js";
import { tagToolProtocol } from "./tag-tool.js";
import { xlamProtocol } from "./xlam.js";

/** Every implemented format. Adding a format: import it here (and remove its id from `PLANNED_PROTOCOL_IDS`). */
export const BUILTIN_PROTOCOLS: readonly ToolCallProtocol[] = [
  tagToolProtocol,
  jsonToolCallsProtocol,
  jsonlEventsProtocol,
  hermesProtocol,
  llamacppGenericProtocol,
  llama3JsonProtocol,
  pythonicProtocol,
  nodeLlamaCppFunctionaryProtocol,
  phi4MiniProtocol,
  commandR7bProtocol,
  deepseekR1Protocol,
  deepseekV31Protocol,
  graniteProtocol,
  gptOssHarmonyProtocol,
  qwen3CoderXmlProtocol,
  glm45Protocol,
  minimaxM2Protocol,
  kimiK2Protocol,
  llama3BuiltinProtocol,
  gemma3ToolCodeProtocol,
  gemma3JsonProtocol,
  mistralV3Protocol,
  mistralV11Protocol,
  functionaryV31Protocol,
  functionaryV32Protocol,
  firefunctionV2Protocol,
  nemotronNanoV2Protocol,
  xlamProtocol,
  apertusProtocol,
  hunyuanA13bProtocol,
  ernie45Protocol,
  seedOssProtocol,
  deepseekV32Protocol,
  lfm2Protocol,
  gemma4Protocol,
  functionGemmaProtocol,
];
