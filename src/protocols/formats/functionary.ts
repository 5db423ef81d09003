import type { Tool } from "@modelcontextprotocol/server";
import { isIdentPart, isIdentStart, isWs } from "../core/match-pattern.js";
import { RawTextCallRegion, type RawTextEnd } from "../core/raw-text-call-region.js";
import { dropRule, reasoningPrefix, reasoningRule } from "../core/reasoning-region.js";
import { toolToFunctionJson } from "../core/render-helpers.js";
import {
  type EngineContext,
  type FeedResult,
  type Region,
  type StartRule,
  StreamParser,
} from "../core/stream-engine.js";
import type { ToolCallProtocol } from "../protocol.js";
import { extraInstructionLines, oneCallOnlyLines } from "../render/catalogue-option-lines.js";
import { renderResultTexts } from "../render/render-result-texts.js";
import { codeArgumentName, isBareCode } from "./shared-code-tool.js";
import { functionTagRule } from "./shared-function-tag-rule.js";
import { namedArgumentsRegion } from "./shared-named-arguments-region.js";
import { createThinkingParser } from "./shared-thinking-parser.js";

const V32_EXAMPLE = '>>><function name>\n{"<argument name>": <value>}';

/** The code-interpreter tool of Functionary (and Llama 3.1's `<|python_tag|>` convention). */
export const PYTHON_TOOL = "python";

/** `<|python_tag|>` then code up to the end of the message: a call of the code-interpreter tool. */
function pythonTagRule(): StartRule {
  return {
    first: "<",
    pattern: ["<|python_tag|>"],
    open: (ctx, m) =>
      new RawTextCallRegion(ctx, {
        opener: m.text,
        name: PYTHON_TOOL,
        argName: codeArgumentName(PYTHON_TOOL, ctx.tools),
        ends: [
          { marker: "<|eom_id|>", consume: true },
          { marker: "<|eot_id|>", consume: true },
        ],
      }),
  };
}

function functionsCatalogueV31(tools: readonly Tool[]): string[] {
  return tools.flatMap((t) => {
    const fn = toolToFunctionJson(t);
    return [`Use the function '${fn.name}' to '${fn.description}'`, JSON.stringify(fn), ""];
  });
}

/**
 * Functionary v3.1 (Llama 3.1 based): `<function=name>{json}</function>` per call, code for the `python` tool
 * after `<|python_tag|>`; results come back in the `ipython` role.
 */
export const functionaryV31Protocol: ToolCallProtocol = {
  id: "functionary_v3_1",
  description: "Functionary v3.1 <function=name>{…}</function> calls and <|python_tag|> code",
  resultRole: "tool",
  stopSequences: ["<|eom_id|>", "<|eot_id|>"],
  callStartMarkers: ["<function=", "<|python_tag|>"],
  callBody: "json-arguments",
  renderCatalogue(tools, opts) {
    return [
      "You have access to the following functions:",
      "",
      ...functionsCatalogueV31(tools),
      "Think very carefully before calling functions.",
      "If you choose to call a function ONLY reply in the following format:",
      "<{start_tag}={function_name}>{parameters}{end_tag}",
      "where",
      "",
      "start_tag => `<function`",
      "parameters => a JSON dict with the function argument name as key and function argument value as value.",
      "end_tag => `</function>`",
      "",
      "Here is an example,",
      '<function=example_function_name>{"example_name": "example_value"}</function>',
      "",
      "Reminder:",
      "- Function calls MUST follow the specified format, start with <function= and end with </function>",
      "- Required parameters MUST be specified",
      opts?.parallel === false
        ? "- Only call one function at a time"
        : "- To call several functions, write one call after another",
      "- Put the entire function call reply on one line",
      ...extraInstructionLines(opts),
    ].join("\n");
  },
  renderAssistantTurn({ content, calls }) {
    const parts = calls.map((c, i) => {
      if (c.name === PYTHON_TOOL && i === calls.length - 1 && isBareCode(c, "code")) {
        return `<|python_tag|>${c.arguments.code}`;
      }
      return `<function=${c.name}>${JSON.stringify(c.arguments)}</function>`;
    });
    return `${content?.trim() ?? ""}${parts.join("")}`;
  },
  renderToolResults(results) {
    return renderResultTexts(results);
  },
  createParser(opts) {
    return createThinkingParser(
      [dropRule("<|eom_id|>"), dropRule("<|eot_id|>"), functionTagRule(), pythonTagRule()],
      opts,
      { strayClosers: ["</function>"] },
    );
  },
};

const MAX_RECIPIENT = 128;

/**
 * After `>>>`: the recipient name, a newline, then its message — text for `all`, code for `python`, the JSON
 * arguments for any other name. Anything that is not `name\n` is content after all.
 */
class RecipientRegion implements Region {
  private name = "";
  private inner: Region | null = null;
  private raw: string;

  constructor(
    private readonly ctx: EngineContext,
    opener: string,
  ) {
    this.raw = opener;
  }

  feed(text: string, from: number, final: boolean): FeedResult {
    if (this.inner) return this.inner.feed(text, from, final);
    const n = text.length;
    let i = from;
    while (i < n) {
      const c = text.charCodeAt(i);
      const ok = this.name === "" ? isIdentStart(c) : isIdentPart(c);
      if (!ok || this.name.length >= MAX_RECIPIENT) break;
      this.name += text[i];
      i++;
    }
    if (i === n) {
      this.raw += text.slice(from, i);
      return final ? this.stop(i) : { pos: n, done: false };
    }
    const c = text.charCodeAt(i);
    if (this.name === "" || !isWs(c)) {
      return { pos: i, done: false, revert: this.raw + text.slice(from, i) };
    }
    // The name ends at the first blank; the newline that should follow it belongs to the marker.
    const after = text[i] === "\r" && text[i + 1] === "\n" ? i + 2 : i + 1;
    this.raw += text.slice(from, after);
    if (this.name === "all") return { pos: after, done: true };
    this.inner = this.open();
    return this.inner.feed(text, after, final);
  }

  finish(): void {
    if (this.inner) {
      this.inner.finish();
      return;
    }
    this.stop(0);
  }

  private stop(pos: number): FeedResult {
    if (this.name !== "" && this.name !== "all") {
      this.ctx.emit({
        type: "truncated",
        raw: this.raw,
        message: `the output ended inside a call (after ${JSON.stringify(this.raw)}), so it was not run; send the complete call as ${V32_EXAMPLE}`,
      });
    }
    this.name = "all";
    return { pos, done: true };
  }

  private open(): Region {
    const name = this.name;
    if (name === PYTHON_TOOL) {
      const ends: RawTextEnd[] = [
        { marker: ">>>", consume: false },
        { marker: "<|eot_id|>", consume: true },
      ];
      return new PythonRecipientRegion(this.ctx, this.raw, ends);
    }
    return namedArgumentsRegion(this.ctx, name, {
      opener: this.raw,
      valueStart: "{",
      example: V32_EXAMPLE,
      what: `the arguments after >>>${name}`,
    });
  }
}

/** `>>>python\n` is followed by code; a body that opens with `{` is read as JSON arguments instead. */
class PythonRecipientRegion implements Region {
  private inner: Region | null = null;

  constructor(
    private readonly ctx: EngineContext,
    private readonly opener: string,
    private readonly ends: RawTextEnd[],
  ) {}

  feed(text: string, from: number, final: boolean): FeedResult {
    if (!this.inner) {
      let j = from;
      while (j < text.length && isWs(text.charCodeAt(j))) j++;
      if (j === text.length && !final) return { pos: from, done: false };
      this.inner =
        text[j] === "{"
          ? namedArgumentsRegion(this.ctx, PYTHON_TOOL, {
              opener: this.opener,
              valueStart: "{",
              example: V32_EXAMPLE,
              what: "the arguments after >>>python",
            })
          : new RawTextCallRegion(this.ctx, {
              opener: this.opener,
              name: PYTHON_TOOL,
              argName: codeArgumentName(PYTHON_TOOL, this.ctx.tools),
              ends: this.ends,
            });
    }
    return this.inner.feed(text, from, final);
  }

  finish(): void {
    this.inner?.finish();
  }
}

function typeOf(schema: unknown): string {
  if (typeof schema !== "object" || schema === null) return "any";
  const s = schema as { type?: unknown; enum?: unknown[] };
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(" | ");
  if (Array.isArray(s.type)) return s.type.map((t) => (t === "integer" ? "number" : String(t))).join(" | ");
  if (s.type === "integer") return "number";
  if (s.type === "array") {
    const items = (s as { items?: unknown }).items;
    return `${items ? typeOf(items) : "any"}[]`;
  }
  return typeof s.type === "string" ? s.type : "any";
}

/** Functionary's TypeScript-namespace rendering of the tools (as its chat template writes it). */
function typescriptNamespace(tools: readonly Tool[]): string {
  const lines = [
    "// Supported function definitions that should be called when necessary.",
    "namespace functions {",
    "",
  ];
  for (const t of tools) {
    const schema = t.inputSchema as { properties?: Record<string, unknown>; required?: string[] };
    lines.push(`// ${t.description ?? ""}`);
    const props = Object.entries(schema.properties ?? {});
    if (props.length === 0) {
      lines.push(`type ${t.name} = () => any;`, "");
      continue;
    }
    lines.push(`type ${t.name} = (_: {`);
    for (const [key, prop] of props) {
      const desc = (prop as { description?: unknown }).description;
      if (typeof desc === "string" && desc !== "") lines.push(`// ${desc}`);
      const optional = schema.required?.includes(key) ? "" : "?";
      lines.push(`${key}${optional}: ${typeOf(prop)},`);
    }
    lines.push("}) => any;", "");
  }
  lines.push("} // namespace functions");
  return lines.join("\n");
}

/**
 * Functionary v3.2: the reply is a series of `>>>recipient\n` segments — `all` for text, a function name for its
 * JSON arguments, `python` for code. Its chat template ends the prompt with `>>>` (parser prefix `>>>`).
 */
export const functionaryV32Protocol: ToolCallProtocol = {
  id: "functionary_v3_2",
  description: "Functionary v3.2 >>>recipient segments",
  resultRole: "tool",
  stopSequences: ["<|eot_id|>"],
  callStartMarkers: [">>>"],
  callBody: "json-arguments",
  renderCatalogue(tools, opts) {
    return [
      "You are capable of executing available function(s) if required.",
      "Only execute function(s) when absolutely necessary.",
      "Ask for the required input to:recipient==all",
      "Use JSON for function arguments.",
      "Respond in this format:",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the template's own placeholder text
      ">>>${recipient}",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the template's own placeholder text
      "${content}",
      ...oneCallOnlyLines(opts, "Call at most one function per turn."),
      "Available functions:",
      typescriptNamespace(tools),
      ...extraInstructionLines(opts),
    ].join("\n");
  },
  renderAssistantTurn({ content, calls }) {
    const text = content?.trim() ?? "";
    const parts = text === "" ? [] : [`>>>all\n${text}`];
    calls.forEach((c, i) => {
      if (c.name === PYTHON_TOOL && i === calls.length - 1 && isBareCode(c, "code")) {
        parts.push(`>>>python\n${c.arguments.code}`);
      } else {
        parts.push(`>>>${c.name}\n${JSON.stringify(c.arguments)}`);
      }
    });
    return parts.join("");
  },
  renderToolResults(results) {
    return renderResultTexts(results);
  },
  createParser(opts) {
    const thinking = reasoningPrefix();
    return new StreamParser(
      {
        rules: [
          reasoningRule(),
          dropRule("</think>"),
          dropRule("<|eot_id|>"),
          { first: ">", pattern: [">>>"], open: (ctx, m) => new RecipientRegion(ctx, m.text) },
        ],
        initialRegion: (ctx, prefix) =>
          prefix.trimEnd().endsWith(">>>") ? new RecipientRegion(ctx, "") : thinking(ctx, prefix),
      },
      opts,
    );
  },
};
