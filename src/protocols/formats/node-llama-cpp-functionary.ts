import { resultToJsonValue } from "../core/render-helpers.js";
import type { ToolCallProtocol } from "../protocol.js";
import { extraInstructionLines } from "../render/catalogue-option-lines.js";
import { namedArgumentsRegion } from "./shared-named-arguments-region.js";
import { createThinkingParser } from "./shared-thinking-parser.js";

const EXAMPLE = '||call: <function name>({"<param>": <value>})';

/**
 * node-llama-cpp's default function-call syntax (its generic chat wrappers): `||call: name({…})`, results
 * written back as `||result: <json>`.
 */
export const nodeLlamaCppFunctionaryProtocol: ToolCallProtocol = {
  id: "node_llama_cpp_functionary",
  description: "node-llama-cpp ||call: name({…}) syntax",
  resultRole: "user",
  stopSequences: ["||result:"],
  callStartMarkers: ["||call:"],
  callBody: "json-arguments",
  renderCatalogue(tools, opts) {
    const sigs = tools.map((t) => {
      const doc = t.description ? `// ${t.description.replace(/\n/g, "\n// ")}\n` : "";
      const props = (t.inputSchema as { properties?: object }).properties;
      const params = props && Object.keys(props).length > 0 ? `params: ${JSON.stringify(t.inputSchema)}` : "";
      return `${doc}function ${t.name}(${params});`;
    });
    return [
      "The assistant calls the provided functions as needed to retrieve information instead of relying on existing knowledge.",
      "To fulfill a request, the assistant calls relevant functions in advance when needed before responding to the request, and does not tell the user prior to calling a function.",
      "Provided functions:",
      "```typescript",
      ...sigs,
      "```",
      "",
      "Calling any of the provided functions can be done like this:",
      `||call: ${tools[0]?.name ?? "getSomeInfo"}({"someKey": "someValue"})`,
      "",
      "Note that the || prefix is mandatory.",
      opts?.parallel === false ? "Call one function at a time." : "Several calls may follow each other.",
      "After calling a function, the raw result appears afterwards and is not part of the conversation.",
      "To make information be part of the conversation, the assistant paraphrases and repeats the information without the function syntax.",
      ...extraInstructionLines(opts),
    ].join("\n");
  },
  renderAssistantTurn({ content, calls }) {
    const rendered = calls.map((c) => `||call: ${c.name}(${JSON.stringify(c.arguments)})`).join("\n");
    const prose = content?.trim() ?? "";
    return prose && rendered ? `${prose}\n${rendered}` : prose || rendered;
  },
  renderToolResults(results) {
    return results.map((r) => `||result: ${JSON.stringify(resultToJsonValue(r.result))}`).join("\n");
  },
  createParser(opts) {
    return createThinkingParser(
      [
        {
          first: "|",
          pattern: ["||call:", { ws: true }, { ident: "name" }, { ws: true }, "("],
          open: (ctx, m) => {
            const name = m.captures.name!;
            return namedArgumentsRegion(ctx, name, {
              opener: m.text,
              closer: ")",
              valueStart: "{",
              example: EXAMPLE,
              what: `the arguments of ||call: ${name}(…)`,
            });
          },
        },
      ],
      opts,
    );
  },
};
