import { CallBodyRegion } from "../core/call-body-region.js";
import { PythonScanner } from "../core/python-scanner.js";
import { dropRule } from "../core/reasoning-region.js";
import { joinContentAndCalls, toolToFunctionJson } from "../core/render-helpers.js";
import type { EngineContext } from "../core/stream-engine.js";
import type { ToolCallProtocol } from "../protocol.js";
import { extraInstructionLines, oneCallOnlyLines } from "../render/catalogue-option-lines.js";
import { renderPythonCall } from "../render/python-call.js";
import { renderResultTexts } from "../render/render-result-texts.js";
import { decodePythonCalls } from "./shared-python-calls-decoder.js";
import { createThinkingParser } from "./shared-thinking-parser.js";

const EXAMPLE = '[func_name1(param1="value1", param2=2), func_name2(param=True)]';

/**
 * Pythonic calls (Llama 3.2 lightweight/Llama 4 and BFCL's prompt format): `[f(a=1), mod.g(b="x")]`, read by a
 * literal parser — nothing is evaluated. Also inside `<|python_start|>…<|python_end|>` (Llama 4).
 */
export const pythonicProtocol: ToolCallProtocol = {
  id: "pythonic",
  description: 'pythonic call list [f(a=1, b="x")]',
  resultRole: "tool",
  stopSequences: ["<|eom_id|>", "<|eot_id|>"],
  callStartMarkers: ["[", "<|python_start|>"],
  callBody: "text",
  renderCatalogue(tools, opts) {
    return [
      "You are an expert in composing functions. You are given a question and a set of possible functions.",
      "Based on the question, you will need to make one or more function/tool calls to achieve the purpose.",
      "If none of the functions can be used, point it out and do not call any.",
      `If you decide to invoke any of the function(s), you MUST put it in the format of ${EXAMPLE}`,
      "You SHOULD NOT include any other text in the response if you call a function.",
      ...oneCallOnlyLines(opts, "Call at most one function per reply."),
      "Here is a list of functions in JSON format that you can invoke.",
      JSON.stringify(tools.map(toolToFunctionJson), null, 2),
      ...extraInstructionLines(opts),
    ].join("\n");
  },
  renderAssistantTurn({ content, calls }) {
    if (calls.length === 0) return content ?? "";
    const rendered = `[${calls.map(renderPythonCall).join(", ")}]`;
    return joinContentAndCalls(content, rendered);
  },
  renderToolResults(results) {
    return renderResultTexts(results);
  },
  createParser(opts) {
    const region = (ctx: EngineContext, opener: string, extra: { fenced?: boolean; endMarker?: string }) =>
      new CallBodyRegion(ctx, {
        opener,
        ...extra,
        // Inside <|python_start|> the list brackets are optional.
        valueStart: extra.endMarker ? "*" : "[",
        onNonValue: "revert",
        revertUndecodable: true,
        createScanner: (hooks, stop) => new PythonScanner(hooks, stop, stop !== undefined),
        isCallPath: () => false,
        decode: decodePythonCalls,
        example: EXAMPLE,
        what: "the call list",
      });
    const head = [{ mark: "body" }, "[", { ws: true }, { ident: "name" }, { ws: true }, "("] as const;
    return createThinkingParser(
      [
        dropRule("<|eom_id|>"),
        dropRule("<|eot_id|>"),
        { first: "[", pattern: [...head], open: (ctx, m) => region(ctx, m.text, {}) },
        {
          first: "`",
          pattern: ["```", { letters: true }, { ws: true }, ...head],
          open: (ctx, m) => region(ctx, m.text, { fenced: true }),
        },
        {
          first: "<",
          pattern: ["<|python_start|>"],
          open: (ctx, m) => region(ctx, m.text, { endMarker: "<|python_end|>" }),
        },
      ],
      opts,
    );
  },
};
