import { describe, expect, it } from "vitest";
import { detectProtocol } from "./detect-protocol.js";
import { ProtocolNotImplementedError, UnknownProtocolError } from "./protocol-errors.js";
import { KNOWN_PROTOCOL_IDS, PLANNED_PROTOCOL_IDS } from "./protocol-ids.js";
import { getProtocol, hasProtocol, listProtocols } from "./protocol-registry.js";

describe("protocol registry", () => {
  it("every known id is either implemented or planned, never both", () => {
    const implemented = listProtocols().map((p) => p.id);
    for (const id of KNOWN_PROTOCOL_IDS) {
      expect(implemented.includes(id) !== PLANNED_PROTOCOL_IDS.includes(id)).toBe(true);
    }
    expect(implemented.every((id) => (KNOWN_PROTOCOL_IDS as readonly string[]).includes(id))).toBe(true);
  });

  it("unknown and planned ids throw errors that list what to use instead", () => {
    expect(() => getProtocol("nope")).toThrow(UnknownProtocolError);
    expect(() => getProtocol("nope")).toThrow(/hermes/);
    const planned = PLANNED_PROTOCOL_IDS[0];
    if (planned) {
      expect(() => getProtocol(planned)).toThrow(ProtocolNotImplementedError);
      expect(() => getProtocol(planned)).toThrow(/not implemented yet.*pythonic/);
    }
  });
});

describe("detectProtocol", () => {
  it.each([
    ["{% for tool in tools %}<tools>{{ tool | tojson }}</tools>{% endfor %}<tool_call>", "hermes"],
    ["<tool_call>\n<function={{ name }}>\n<parameter=", "qwen3_coder_xml"],
    ["<tool_call>{{ name }}<arg_key>{{ k }}</arg_key>", "glm45"],
    ["[AVAILABLE_TOOLS]{{ tools }}[/AVAILABLE_TOOLS][TOOL_CALLS]", "mistral_v3"],
    ["[TOOL_CALLS]{{ name }}[ARGS]{{ args }}", "mistral_v11"],
    ["<|start|>assistant<|channel|>analysis<|message|>", "gpt_oss_harmony"],
    ["<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>x\n```json\n", "deepseek_r1"],
    ["<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>{{ name }}<｜tool▁sep｜>", "deepseek_v3_1"],
    ["<|start_header_id|>ipython<|end_header_id|>", "llama3_json"],
    ["[func_name1(params_name1=params_value1", "pythonic"],
    ["<|START_ACTION|>", "command_r7b"],
    ["<|tool_calls_section_begin|>", "kimi_k2"],
    ["<minimax:tool_call>", "minimax_m2"],
    [">>>all\n{{ functions.x }}", "functionary_v3_2"],
  ])("chat template %j → %s", (chatTemplate, id) => {
    expect(detectProtocol({ chatTemplate })).toMatchObject({ id, source: "chat-template" });
  });

  it.each([
    ["Qwen2.5-7B-Instruct-Q4_K_M.gguf", "hermes"],
    ["Qwen3-Coder-30B-A3B", "qwen3_coder_xml"],
    ["Meta-Llama-3.1-8B-Instruct", "llama3_json"],
    ["Llama-3.2-3B-Instruct", "pythonic"],
    ["gpt-oss-20b", "gpt_oss_harmony"],
    ["Mistral-7B-Instruct-v0.3", "mistral_v3"],
    ["gemma-3-4b-it", "gemma3_tool_code"],
  ])("model name %s → %s", (modelName, id) => {
    expect(detectProtocol({ modelName })).toMatchObject({ id, source: "model-name" });
  });

  it("falls back to hermes, or to the given fallback, and says whether the id is implemented", () => {
    expect(detectProtocol({ modelName: "my-model" })).toEqual({
      id: "hermes",
      source: "default",
      implemented: true,
    });
    expect(detectProtocol({ fallback: "tag_tool" }).id).toBe("tag_tool");
    expect(detectProtocol({ modelName: "Mixtral-8x7B" }).implemented).toBe(hasProtocol("mistral_v3"));
  });
});
