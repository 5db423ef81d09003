import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Tool } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import type { AgentMessage } from "../../core/agent-message.js";
import { writeTestModel } from "../gguf/make-test-model.js";
import { toTemplateMessages } from "../message-converters/template-messages.js";
import { ChatTemplateError } from "./chat-template.js";
import { builtinChatTemplate, loadChatTemplate } from "./load-chat-template.js";

const temperature: Tool = {
  name: "get_current_temperature",
  description: "Get current temperature at a location.",
  inputSchema: {
    type: "object",
    properties: {
      location: { type: "string", description: 'The location, "City, State, Country".' },
      unit: { type: "string", enum: ["celsius", "fahrenheit"] },
    },
    required: ["location"],
  },
};

const conversation: AgentMessage[] = [
  { role: "system", content: "You are a weather bot." },
  { role: "user", content: "What's the temperature in San Francisco and in Zürich?" },
  {
    role: "assistant",
    content: "Checking both.",
    toolCalls: [
      { id: "call_1", name: "get_current_temperature", arguments: { location: "San Francisco, CA, USA" } },
      {
        id: "call_2",
        name: "get_current_temperature",
        arguments: { location: "Zürich, Switzerland", unit: "celsius" },
      },
    ],
  },
  {
    role: "tool",
    callId: "call_1",
    name: "get_current_temperature",
    result: { content: [{ type: "text", text: '{"temperature": 26.1}' }] },
  },
  {
    role: "tool",
    callId: "call_2",
    name: "get_current_temperature",
    result: { content: [{ type: "text", text: '{"temperature": 14}' }] },
  },
];

describe("chat templates rendered with @huggingface/jinja", () => {
  it("renders Qwen2.5's template with tools, calls and results byte for byte as Qwen documents the format", () => {
    const prompt = builtinChatTemplate("qwen2.5").render({
      messages: toTemplateMessages(conversation),
      tools: [temperature],
    });
    // Written by hand from Qwen2.5's documented function-calling prompt (qwen.readthedocs.io, "Function Calling"):
    // tools as one JSON object per line inside <tools>, calls as <tool_call> JSON, consecutive results in one user turn.
    const expected =
      "<|im_start|>system\n" +
      "You are a weather bot.\n\n" +
      "# Tools\n\n" +
      "You may call one or more functions to assist with the user query.\n\n" +
      "You are provided with function signatures within <tools></tools> XML tags:\n" +
      "<tools>\n" +
      '{"type": "function", "function": {"name": "get_current_temperature", "description": "Get current temperature at a location.", "parameters": {"type": "object", "properties": {"location": {"type": "string", "description": "The location, \\"City, State, Country\\"."}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}, "required": ["location"]}}}\n' +
      "</tools>\n\n" +
      "For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n" +
      "<tool_call>\n" +
      '{"name": <function-name>, "arguments": <args-json-object>}\n' +
      "</tool_call><|im_end|>\n" +
      "<|im_start|>user\n" +
      "What's the temperature in San Francisco and in Zürich?<|im_end|>\n" +
      "<|im_start|>assistant\n" +
      "Checking both.\n" +
      "<tool_call>\n" +
      '{"name": "get_current_temperature", "arguments": {"location": "San Francisco, CA, USA"}}\n' +
      "</tool_call>\n" +
      "<tool_call>\n" +
      '{"name": "get_current_temperature", "arguments": {"location": "Zürich, Switzerland", "unit": "celsius"}}\n' +
      "</tool_call><|im_end|>\n" +
      "<|im_start|>user\n" +
      "<tool_response>\n" +
      '{"temperature": 26.1}\n' +
      "</tool_response>\n" +
      "<tool_response>\n" +
      '{"temperature": 14}\n' +
      "</tool_response><|im_end|>\n" +
      "<|im_start|>assistant\n";
    expect(prompt).toBe(expected);
  });

  it("uses Qwen2.5's default system prompt when the conversation has none and no tools are offered", () => {
    const prompt = builtinChatTemplate("qwen2").render({ messages: [{ role: "user", content: "hi" }] });
    expect(prompt).toBe(
      "<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n",
    );
  });

  it("renders Qwen3 with thinking switched off and keeps reasoning only after the last user query", () => {
    const messages = toTemplateMessages([
      { role: "user", content: "2+2?" },
      { role: "assistant", content: "4", reasoning: "easy" },
      { role: "user", content: "3+3?" },
    ]);
    const prompt = builtinChatTemplate("qwen3").render({ messages, variables: { enable_thinking: false } });
    expect(prompt).toBe(
      "<|im_start|>user\n2+2?<|im_end|>\n<|im_start|>assistant\n4<|im_end|>\n<|im_start|>user\n3+3?<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n",
    );
  });

  it("renders Llama 3 and Gemma framing; a template's raise_exception surfaces as a ChatTemplateError", () => {
    const messages = toTemplateMessages([{ role: "user", content: " hi " }]);
    expect(builtinChatTemplate("llama3").render({ messages })).toBe(
      "<|start_header_id|>user<|end_header_id|>\n\nhi<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n",
    );
    expect(builtinChatTemplate("gemma").render({ messages })).toBe(
      "<start_of_turn>user\nhi<end_of_turn>\n<start_of_turn>model\n",
    );
    expect(() =>
      builtinChatTemplate("gemma").render({ messages: [{ role: "system", content: "x" }] }),
    ).toThrow(/System role not supported/);
    expect(() => builtinChatTemplate("no-such")).toThrow(ChatTemplateError);
  });

  it("loads the template from a tokenizer_config.json (named variants, chat_template.jinja) and from a GGUF", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "tb-tpl-"));
    const config = path.join(dir, "tokenizer_config.json");
    writeFileSync(
      config,
      JSON.stringify({
        eos_token: { content: "<|im_end|>" },
        chat_template: [
          { name: "default", template: "{% for m in messages %}D:{{ m.content }}{% endfor %}" },
          { name: "tool_use", template: "{% for m in messages %}T:{{ m.content }}{% endfor %}" },
        ],
      }),
    );
    const messages = [{ role: "user" as const, content: "x" }];
    expect((await loadChatTemplate({ tokenizerConfig: config })).render({ messages })).toBe("D:x");
    const toolUse = await loadChatTemplate({ tokenizerConfig: config, variant: "tool_use" });
    expect(toolUse.render({ messages })).toBe("T:x");
    expect(toolUse.eosToken).toBe("<|im_end|>");

    const dir2 = mkdtempSync(path.join(tmpdir(), "tb-tpl-"));
    writeFileSync(path.join(dir2, "tokenizer_config.json"), "{}");
    writeFileSync(path.join(dir2, "chat_template.jinja"), "J:{{ messages[0].content }}");
    expect(
      (await loadChatTemplate({ tokenizerConfig: path.join(dir2, "tokenizer_config.json") })).render({
        messages,
      }),
    ).toBe("J:x");

    const gguf = path.join(dir, "tiny.gguf");
    writeTestModel(gguf, { seed: 2 });
    const fromGguf = await loadChatTemplate({ gguf });
    expect(fromGguf.render({ messages })).toBe("<|im_start|>user\nx<|im_end|>\n<|im_start|>assistant\n");
    expect(fromGguf.turnEndMarkers).toContain("<|im_end|>");
  });
});
