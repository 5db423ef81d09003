import type { Tool } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { getProtocol } from "../../src/protocols/protocol-registry.js";
import type { ToolResultItem } from "../../src/protocols/types.js";

/**
 * Issue 17's formats render the catalogue, calls and results the way each model's chat template does: the table
 * holds, per format, text its template writes (tool listing, call instructions) and the exact result framing.
 */
const TOOLS: Tool[] = [
  {
    name: "get_weather",
    description: "Weather for a city",
    inputSchema: {
      type: "object",
      properties: { city: { type: "string", description: "City name" }, days: { type: "integer" } },
      required: ["city"],
    },
  },
];
const RESULTS: ToolResultItem[] = [
  { callId: "c1", name: "get_weather", result: { content: [{ type: "text", text: '{"temp": 21}' }] } },
  { callId: "c2", name: "now", result: { content: [{ type: "text", text: "12:00" }] } },
];

const CASES: [id: string, catalogue: string[], results: string][] = [
  [
    "nemotron_nano_v2",
    [
      "You can use the following tools to assist the user if required:\n<AVAILABLE_TOOLS>[{",
      'If you decide to call any tool(s), use the following format:\n<TOOLCALL>[{"name": "tool_name1", "arguments": "tool_args1"}',
    ],
    '<TOOL_RESPONSE>[{"temp": 21}, 12:00]</TOOL_RESPONSE>',
  ],
  [
    "xlam",
    [
      "You have access to a set of tools. When using tools, make calls in a single JSON array: ",
      '"name": "get_weather"',
    ],
    '{"temp": 21}\n12:00',
  ],
  [
    "apertus",
    [
      "Tool Capabilities:\n// Weather for a city\ntype get_weather = (_: {\n// City name\ncity: string,\ndays?: number\n}) => any;",
      "<|tools_prefix|>[{",
    ],
    '[{"temp": 21}, 12:00]',
  ],
  [
    "seed_oss",
    [
      'def get_weather(city: str,days: int):\n    """\n    Weather for a city',
      "- city (str) [必填]: City name",
      "工具调用请遵循如下格式:\n<seed:tool_call>\n<function=example_function_name>",
    ],
    '{"temp": 21}\n12:00',
  ],
  [
    "deepseek_v3_2",
    [
      'You can invoke functions by writing a "<｜DSML｜function_calls>" block',
      '<｜DSML｜parameter name="$PARAMETER_NAME" string="true|false">$PARAMETER_VALUE</｜DSML｜parameter>',
      '<functions>\n{"name":"get_weather"',
    ],
    '<function_results>\n<result>{"temp": 21}</result>\n<result>12:00</result>\n</function_results>',
  ],
  [
    "lfm2",
    [
      'List of tools: <|tool_list_start|>[{"type":"function","function":{"name":"get_weather"',
      "<|tool_list_end|>",
    ],
    '<|tool_response_start|>{"temp": 21}<|tool_response_end|>\n<|tool_response_start|>12:00<|tool_response_end|>',
  ],
  [
    "gemma4",
    [
      '<|tool>declaration:get_weather{description:<|"|>Weather for a city<|"|>,parameters:{properties:{city:{description:<|"|>City name<|"|>,type:<|"|>STRING<|"|>},days:{type:<|"|>INTEGER<|"|>}},required:[<|"|>city<|"|>],type:<|"|>OBJECT<|"|>}}<tool|>',
    ],
    '<|tool_response>response:get_weather{temp:21}<tool_response|><|tool_response>response:now{value:<|"|>12:00<|"|>}<tool_response|>',
  ],
  [
    "functiongemma",
    [
      "You are a model that can do function calling with the following functions<start_function_declaration>declaration:get_weather{description:<escape>Weather for a city<escape>,",
    ],
    "<start_function_response>response:get_weather{temp:21}<end_function_response><start_function_response>response:now{value:<escape>12:00<escape>}<end_function_response>",
  ],
  ["hunyuan_a13b", ['<tool_calls>[{"name": "tool_name1"', '"name":"get_weather"'], '{"temp": 21}\n12:00'],
  ["ernie45", ["<tools>", "within <tool_call></tool_call> XML tags"], '{"temp": 21}\n12:00'],
];

describe.each(CASES)("%s rendering", (id, catalogue, results) => {
  const protocol = getProtocol(id);

  it("the catalogue lists the tools and says how to call them, worded as the template", () => {
    const text = protocol.renderCatalogue(TOOLS);
    for (const piece of catalogue) expect(text).toContain(piece);
    expect(protocol.renderCatalogue(TOOLS, { parallel: false })).toMatch(/at most one/i);
    expect(protocol.renderCatalogue(TOOLS, { extraInstructions: "Be brief." })).toContain("Be brief.");
  });

  it("tool results are framed as the template frames them", () => {
    expect(protocol.renderToolResults(RESULTS)).toBe(results);
  });

  it("an assistant turn with prose and two calls parses back to the same prose and calls", () => {
    const calls = [
      { id: "a", name: "get_weather", arguments: { city: "Paris", days: 2 } },
      { id: "b", name: "now", arguments: {} },
    ];
    const parser = protocol.createParser({ tools: TOOLS });
    const events = [
      ...parser.push(protocol.renderAssistantTurn({ content: "Checking.", calls })),
      ...parser.end(),
    ];
    expect(events.flatMap((e) => (e.type === "call-end" ? [[e.call.name, e.call.arguments]] : []))).toEqual([
      ["get_weather", { city: "Paris", days: 2 }],
      ["now", {}],
    ]);
    expect(
      events
        .flatMap((e) => (e.type === "content" ? [e.text] : []))
        .join("")
        .trim(),
    ).toBe("Checking.");
  });
});
