import { dropRule, ReasoningRegion, reasoningPrefix, reasoningRule } from "../core/reasoning-region.js";
import { resultToJsonValue, toolToFunctionJson } from "../core/render-helpers.js";
import { taggedJsonCallRule } from "../core/start-rules.js";
import { StreamParser } from "../core/stream-engine.js";
import type { ToolCallProtocol } from "../protocol.js";

const START_THINKING = "<|START_THINKING|>";
const END_THINKING = "<|END_THINKING|>";
const START_ACTION = "<|START_ACTION|>";
const END_ACTION = "<|END_ACTION|>";
const START_RESPONSE = "<|START_RESPONSE|>";
const END_RESPONSE = "<|END_RESPONSE|>";
const START_TOOL_RESULT = "<|START_TOOL_RESULT|>";
const END_TOOL_RESULT = "<|END_TOOL_RESULT|>";
const END_OF_TURN = "<|END_OF_TURN_TOKEN|>";

const EXAMPLE = `${START_ACTION}[\n    {"tool_call_id": "0", "tool_name": "<function name>", "parameters": {"<param>": <value>}}\n]${END_ACTION}`;

/**
 * Cohere Command R7B: a plan in `<|START_THINKING|>…<|END_THINKING|>`, calls as a JSON list in
 * `<|START_ACTION|>[{"tool_call_id", "tool_name", "parameters"}]<|END_ACTION|>`, the answer in
 * `<|START_RESPONSE|>…<|END_RESPONSE|>`, results in `<|START_TOOL_RESULT|>[{"tool_call_id", "results", "is_error"}]…`.
 * `tool_call_id` is a per-turn counter ("0", "1", …), so calls get fresh ids instead.
 */
export const commandR7bProtocol: ToolCallProtocol = {
  id: "command_r7b",
  description: "Cohere Command R7B <|START_ACTION|>[{tool_name, parameters}]<|END_ACTION|>",
  resultRole: "user",
  stopSequences: [START_TOOL_RESULT, END_OF_TURN],
  callStartMarkers: [START_ACTION],
  callBody: "json-envelope",
  renderCatalogue(tools, opts) {
    const list = tools.map((t) => {
      const f = toolToFunctionJson(t);
      return `    ${JSON.stringify({ name: f.name, description: f.description, parameters: f.parameters, responses: null })}`;
    });
    return [
      "## Tool Use",
      "Think about how you can make best use of the provided tools to help with the task and come up with a high level plan that you will execute first.",
      "",
      `0. Start by writing ${START_THINKING} followed by a detailed step by step plan of how you will solve the problem. For each step explain your thinking fully and give details of required tool calls (if needed). When you finish, close it out with ${END_THINKING}.`,
      "",
      "Then carry out your plan by repeatedly executing the following steps.",
      `1. Action: write ${START_ACTION} followed by a list of JSON-formatted tool calls, with each one containing "tool_name" and "parameters" fields.`,
      opts?.parallel === false
        ? "    Make one tool call per action."
        : "    When there are multiple tool calls which are completely independent of each other (i.e. they can be executed in parallel), you should list them out all together in one step.",
      `    When you finish, close it out with ${END_ACTION}.`,
      `    For example: ${START_ACTION}[{"tool_call_id": "0", "tool_name": "${tools[0]?.name ?? "get_weather"}", "parameters": {}}]${END_ACTION}`,
      `2. Observation: you will then receive results of those tool calls in JSON format in the very next turn, wrapped around by ${START_TOOL_RESULT} and ${END_TOOL_RESULT}. NEVER hallucinate results.`,
      `3. Reflection: start the next turn by writing ${START_THINKING} followed by what you've figured out so far, any changes you need to make to your plan, and what you will do next. When you finish, close it out with ${END_THINKING}.`,
      "",
      `4. Response: then break out of the loop and write ${START_RESPONSE} followed by a piece of text which serves as a response to the user's last request. When you finish, close it out with ${END_RESPONSE}.`,
      "",
      "## Available Tools",
      "Here is the list of tools that you have available to you.",
      "You can ONLY use the tools listed here. When a tool is not listed below, it is NOT available and you should NEVER attempt to use it.",
      'Each tool is represented as a JSON object with fields like "name", "description", "parameters" (per JSON Schema), and optionally, "responses" (per JSON Schema).',
      "",
      "```json",
      "[",
      list.join(",\n"),
      "]",
      "```",
      ...(opts?.extraInstructions ? ["", opts.extraInstructions] : []),
    ].join("\n");
  },
  renderAssistantTurn({ content, calls }) {
    const prose = content?.trim() ?? "";
    if (calls.length === 0) return prose === "" ? "" : `${START_RESPONSE}${prose}${END_RESPONSE}`;
    // Prose that comes with calls is the model's plan: Command R7B writes it in the thinking block.
    const plan = prose === "" ? "" : `${START_THINKING}${prose}${END_THINKING}`;
    const items = calls.map((c, i) =>
      JSON.stringify({ tool_call_id: String(i), tool_name: c.name, parameters: c.arguments }),
    );
    return `${plan}${START_ACTION}[\n    ${items.join(",\n    ")}\n]${END_ACTION}`;
  },
  renderToolResults(results) {
    const items = results.map((r, i) =>
      JSON.stringify(
        {
          tool_call_id: String(i),
          results: { "0": resultToJsonValue(r.result) },
          is_error: r.result.isError ? true : null,
        },
        null,
        4,
      ),
    );
    return `${START_TOOL_RESULT}[\n${items.join(",\n")}\n]${END_TOOL_RESULT}`;
  },
  createParser(opts) {
    const cohereReasoning = reasoningPrefix(START_THINKING, END_THINKING);
    const thinkReasoning = reasoningPrefix();
    return new StreamParser(
      {
        rules: [
          { first: "<", pattern: [START_THINKING], open: (ctx) => new ReasoningRegion(ctx, END_THINKING) },
          reasoningRule(),
          dropRule("</think>"),
          taggedJsonCallRule(START_ACTION, END_ACTION, EXAMPLE, {
            onNonValue: "error",
            nameFrom: (m) => m.tool_name ?? m.name,
            what: `the JSON list inside ${START_ACTION}`,
          }),
          dropRule(START_RESPONSE),
          dropRule(END_RESPONSE),
          dropRule(END_THINKING),
          dropRule(END_ACTION),
          dropRule(END_OF_TURN),
        ],
        strayClosers: [END_ACTION],
        initialRegion: (ctx, prefix) => cohereReasoning(ctx, prefix) ?? thinkReasoning(ctx, prefix),
      },
      opts,
    );
  },
};
