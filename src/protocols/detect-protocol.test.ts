import { describe, expect, it } from "vitest";
import { detectProtocol } from "./detect-protocol.js";
import type { ProtocolId } from "./protocol-ids.js";

/**
 * One short excerpt per template rule, taken from the models' published chat templates (Hugging Face
 * tokenizer_config.json / llama.cpp models/templates/*.jinja / the vendors' documented tool prompts).
 */
const TEMPLATE_EXCERPTS: [string, string, ProtocolId][] = [
  [
    "gpt-oss (harmony)",
    `{{- "<|start|>assistant<|channel|>analysis<|message|>" + message.thinking + "<|end|>" }}`,
    "gpt_oss_harmony",
  ],
  [
    "MiniMax-M2",
    `{{- '<minimax:tool_call>' + '\\n' }}{%- for tool_call in message.tool_calls -%}{{- '<invoke name="' + tool_call.name + '">' }}`,
    "minimax_m2",
  ],
  [
    "Kimi-K2",
    `{%- if message['tool_calls'] -%}<|tool_calls_section_begin|>{%- for tool_call in message['tool_calls'] -%}<|tool_call_begin|>{{ formatted_id }}<|tool_call_argument_begin|>`,
    "kimi_k2",
  ],
  [
    "DeepSeek-R1",
    `{{'<｜Assistant｜><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>' + tool['type'] + '<｜tool▁sep｜>' + tool['function']['name'] + '\\n' + '\`\`\`json' + '\\n' + tool['function']['arguments'] + '\\n' + '\`\`\`' + '<｜tool▁call▁end｜>'}}`,
    "deepseek_r1",
  ],
  [
    "DeepSeek-V3.1",
    `{{'<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>'+ tool['function']['name'] + '<｜tool▁sep｜>' + tool['function']['arguments'] + '<｜tool▁call▁end｜>'}}`,
    "deepseek_v3_1",
  ],
  [
    "Command R7B",
    `{%- if message.tool_calls %}{{ '<|START_THINKING|>' + message.tool_plan + '<|END_THINKING|><|START_ACTION|>[\\n' }}`,
    "command_r7b",
  ],
  [
    "Mistral Small 3.2 (v11 tokenizer)",
    `{{- "[TOOL_CALLS]" + tool_call.function.name + "[ARGS]" + arguments }}`,
    "mistral_v11",
  ],
  [
    "Mistral Small 3.1 (llama.cpp)",
    `{{- "[AVAILABLE_TOOLS] [" }}…{{- "[TOOL_CALLS] [" }}{%- for tool_call in tool_calls %}{%- set out = tool_call.function|tojson %}`,
    "mistral_v3",
  ],
  [
    "Functionary v3.2",
    `{{ '<|start_header_id|>assistant<|end_header_id|>\\n\\n>>>all\\n' + message['content'] }}{{ '>>>' + tool_call['function']['name'] + '\\n' + tool_call['function']['arguments'] }}`,
    "functionary_v3_2",
  ],
  [
    "Functionary v3.1",
    `{%- if tool_call.function.name == "python" -%}{{ '<|python_tag|>' + tool_call.function.arguments.code }}{%- else -%}{{ '<function=' + tool_call.function.name + '>' + tool_call.function.arguments + '</function>' }}`,
    "functionary_v3_1",
  ],
  [
    "FireFunction v2",
    `{{- '<|start_header_id|>system<|end_header_id|>\\n\\n' }}  * all function calls should be generated in a single JSON list formatted as functools[{"name": [function name], "arguments": [function arguments as JSON]}, ...]`,
    "firefunction_v2",
  ],
  [
    "GLM-4.5",
    `{{- '<tool_call>' + tc.name }}{% for k, v in _args.items() %}<arg_key>{{ k }}</arg_key><arg_value>{{ v }}</arg_value>{% endfor %}</tool_call>`,
    "glm45",
  ],
  [
    "Qwen3-Coder",
    `{{- '<tool_call>\\n<function=' + tool_call.name + '>\\n' }}{%- for args_name, args_value in tool_call.arguments|items %}{{- '<parameter=' + args_name + '>\\n' }}`,
    "qwen3_coder_xml",
  ],
  [
    "Granite 3.1",
    `{%- elif message['role'] == 'assistant_tool_call' %}{{- '<|start_of_role|>assistant<|end_of_role|><|tool_call|>' + message['content'] + '<|end_of_text|>\\n' }}`,
    "granite",
  ],
  [
    "Phi-4-mini (Hugging Face)",
    `{{ '<|' + message['role'] + '|>' + message['content'] + '<|tool|>' + message['tools'] + '<|/tool|>' + '<|end|>' }}`,
    "phi4_mini",
  ],
  [
    "Phi-4-mini (Ollama / vLLM, FireFunction's prompt)",
    `<|system|>\n  * all function calls should be generated in a single JSON list formatted as functools[{"name": [function name], "arguments": [function arguments as JSON]}, ...]<|end|>`,
    "phi4_mini",
  ],
  [
    "Qwen 2.5 (Hermes)",
    `{{- "\\n</tools>\\n\\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\\n<tool_call>\\n" }}`,
    "hermes",
  ],
  [
    "Llama 3.2 pythonic (vLLM)",
    `If you decide to invoke any of the function(s), you MUST put it in the format of [func_name1(params_name1=params_value1, params_name2=params_value2...), func_name2(params)]`,
    "pythonic",
  ],
  ["Llama 4", `{{- '<|header_start|>assistant<|header_end|>\\n\\n' -}}{{- '<|python_start|>' }}`, "pythonic"],
  [
    "Llama 3.1 / 3.3 (built-in tools)",
    `{%- if builtin_tools is defined %}{{- "Tools: " + builtin_tools | reject('equalto', 'code_interpreter') | join(", ") + "\\n\\n"}}{%- endif %}…{{- "<|python_tag|>" + tool_call.name + ".call(" }}…{{- "<|start_header_id|>ipython<|end_header_id|>\\n\\n" }}`,
    "llama3_builtin",
  ],
  [
    "Llama 3.2 (JSON calls, no built-in tools)",
    `{{- '{"name": "' + tool_call.name + '", ' }}{{- '"parameters": ' }}{{- tool_call.arguments | tojson }}{{- "}" }}{{- "<|eot_id|>" }}{%- elif message.role == "tool" or message.role == "ipython" %}{{- "<|start_header_id|>ipython<|end_header_id|>\\n\\n" }}`,
    "llama3_json",
  ],
  [
    "Gemma 3 (Google's JSON function-calling prompt)",
    `{{ '<start_of_turn>user\\n' }}You have access to functions. If you decide to invoke any of the function(s),\nyou MUST put it in the format of\n{"name": function name, "parameters": dictionary of argument name and its value}`,
    "gemma3_json",
  ],
  [
    "Gemma 3 (tool_code prompt)",
    "{{ '<start_of_turn>user\\n' }}At each turn, if you decide to invoke any of the function(s), it should be wrapped with ```tool_code```.",
    "gemma3_tool_code",
  ],
];

describe("detectProtocol from chat templates", () => {
  it.each(TEMPLATE_EXCERPTS)("%s → %s", (_model, chatTemplate, id) => {
    expect(detectProtocol({ chatTemplate })).toEqual({ id, source: "chat-template", implemented: true });
  });

  it("a template without tool markup falls through to the model name", () => {
    const plainLlama3 =
      "{{ '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n' + message['content'] | trim + '<|eot_id|>' }}";
    expect(detectProtocol({ chatTemplate: plainLlama3, modelName: "Llama-3.2-3B-Instruct" })).toMatchObject({
      id: "pythonic",
      source: "model-name",
    });
  });

  it("DeepSeek V3.2's DSML template is not taken for the V3.1 format", () => {
    const dsml = `{%- set dsml_token = "｜DSML｜" -%}<{{ dsml_token }}function_calls>\n<{{ dsml_token }}invoke name="{{ tool_call.function.name }}">`;
    expect(detectProtocol({ chatTemplate: dsml, modelName: "DeepSeek-V3.2" }).id).not.toBe("deepseek_v3_1");
    expect(detectProtocol({ modelName: "DeepSeek-V3.2-Exp" }).id).toBe("deepseek_v3_1");
  });
});

describe("detectProtocol from model names", () => {
  it.each([
    ["gpt-oss-120b", "gpt_oss_harmony"],
    ["Qwen3-Coder-480B-A35B-Instruct", "qwen3_coder_xml"],
    ["MiniMax-M2", "minimax_m2"],
    ["Kimi-K2-Instruct-0905", "kimi_k2"],
    ["GLM-4.7", "glm45"],
    ["DeepSeek-V3.1-Terminus", "deepseek_v3_1"],
    ["DeepSeek-R1-Distill-Qwen-32B-Q4_K_M.gguf", "deepseek_r1"],
    ["c4ai-command-r7b-12-2024", "command_r7b"],
    ["Magistral-Small-2509", "mistral_v11"],
    ["Mistral-Nemo-Instruct-2407", "mistral_v3"],
    ["functionary-medium-v3.1", "functionary_v3_1"],
    ["functionary-small-v3.2", "functionary_v3_2"],
    ["llama-3-firefunction-v2", "firefunction_v2"],
    ["Phi-4-mini-instruct", "phi4_mini"],
    ["granite-3.3-8b-instruct", "granite"],
    ["gemma-3-27b-it", "gemma3_tool_code"],
    ["Llama-4-Scout-17B-16E-Instruct", "pythonic"],
    ["Llama-3.3-70B-Instruct", "llama3_json"],
    ["Hermes-3-Llama-3.1-8B", "hermes"],
    ["Nous-Hermes-2-Mistral-7B-DPO", "hermes"],
    ["Qwen3-8B", "hermes"],
  ] as const)("%s → %s", (modelName, id) => {
    expect(detectProtocol({ modelName })).toEqual({ id, source: "model-name", implemented: true });
  });
});
