import { CallBodyRegion, jsonScannerFactory } from "../core/call-body-region.js";
import { jsonCallsDecoder } from "../core/json-call-decoder.js";
import { dropRule } from "../core/reasoning-region.js";
import type { ToolCallProtocol } from "../protocol.js";
import { extraInstructionLines, oneCallOnlyLines } from "../render/catalogue-option-lines.js";
import { functionToolJson } from "../render/function-tool-json.js";
import { renderCallObjects } from "../render/render-call-objects.js";
import { renderResultTexts } from "../render/render-result-texts.js";
import { createThinkingParser } from "./shared-thinking-parser.js";

const EXAMPLE = 'functools[{"name": "<function name>", "arguments": {"<argument name>": <value>}}]';

/**
 * FireFunction v2 (Llama 3 based): optional prose, then ` functools[{"name": …, "arguments": {…}}, …]` — one JSON
 * list holding every call, no closing marker. Results come back in the `tool` role.
 */
export const firefunctionV2Protocol: ToolCallProtocol = {
  id: "firefunction_v2",
  description: "FireFunction v2 functools[{…}] call list",
  resultRole: "tool",
  stopSequences: ["<|eot_id|>"],
  callStartMarkers: [" functools["],
  callBody: "json-envelope",
  renderCatalogue(tools, opts) {
    return [
      "In addition to plain text responses, you can chose to call one or more of the provided functions.",
      "",
      "Use the following rule to decide when to call a function:",
      '  * if the response can be generated from your internal knowledge (e.g., as in the case of queries like "What is the capital of Poland?"), do so',
      "  * if you need external information that can be obtained by calling one or more of the provided functions, generate a function calls",
      "",
      "If you decide to call functions:",
      "  * prefix function calls with functools marker (no closing marker required)",
      '  * all function calls should be generated in a single JSON list formatted as functools[{"name": [function name], "arguments": [function arguments as JSON]}, ...]',
      "  * follow the provided JSON schema. Do not hallucinate arguments or values. Do to blindly copy values from the provided samples",
      "  * respect the argument type formatting. E.g., if the type if number and format is float, write value 7 as 7.0",
      "  * make sure you pick the right functions that match the user intent",
      ...oneCallOnlyLines(opts, "  * put at most one call in the list"),
      "",
      "Available functions as JSON spec:",
      JSON.stringify(tools.map(functionToolJson), null, 2),
      ...extraInstructionLines(opts),
    ].join("\n");
  },
  renderAssistantTurn({ content, calls }) {
    const text = content?.trim() ?? "";
    if (calls.length === 0) return text;
    return `${text} functools[${renderCallObjects(calls, { separator: ", " })}]`;
  },
  renderToolResults(results) {
    return renderResultTexts(results);
  },
  createParser(opts) {
    return createThinkingParser(
      [
        dropRule("<|eot_id|>"),
        {
          first: "f",
          pattern: ["functools", { ws: true }, { mark: "body" }, "["],
          open: (ctx, m) =>
            new CallBodyRegion(ctx, {
              opener: m.text,
              valueStart: "[",
              onNonValue: "error",
              createScanner: jsonScannerFactory,
              isCallPath: (p) => p.length === 1 && typeof p[0] === "number",
              decode: jsonCallsDecoder(EXAMPLE),
              example: EXAMPLE,
              what: "the list after functools",
            }),
        },
      ],
      opts,
    );
  },
};
