import type { Tool } from "@modelcontextprotocol/server";
import { CallBodyRegion, jsonScannerFactory } from "../core/call-body-region.js";
import { jsonCallsDecoder } from "../core/json-call-decoder.js";
import { isWs, type PatternToken } from "../core/match-pattern.js";
import { dropRule, reasoningPrefix, reasoningRule } from "../core/reasoning-region.js";
import { resultToJsonValue } from "../core/render-helpers.js";
import {
  type EngineContext,
  type FeedResult,
  type Region,
  type StartRule,
  StreamParser,
} from "../core/stream-engine.js";
import type { ToolCallProtocol } from "../protocol.js";
import { extraInstructionLines, oneCallOnlyLines } from "../render/catalogue-option-lines.js";
import { functionToolJson } from "../render/function-tool-json.js";
import { renderResultTexts } from "../render/render-result-texts.js";
import { jsonCallOrProseDecoder } from "./shared-json-call-or-prose-decoder.js";
import { namedArgumentsRegion } from "./shared-named-arguments-region.js";

const V3_EXAMPLE = '[TOOL_CALLS][{"name": "<function name>", "arguments": {"<argument name>": <value>}}]';
const V11_EXAMPLE = '[TOOL_CALLS]<function name>[ARGS]{"<argument name>": <value>}';
const TOOL_CALLS = "[TOOL_CALLS]";
const ARGS = "[ARGS]";
const CALL_ID = "[CALL_ID]";
const WS: PatternToken = { ws: true };
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/**
 * Mistral's templates insist on call ids of exactly 9 alphanumerics. Other ids are mapped to one
 * deterministically (FNV-1a), so a call and its result always carry the same id.
 */
export function mistralCallId(id: string): string {
  if (/^[A-Za-z0-9]{9}$/.test(id)) return id;
  let h = 0x811c9dc5;
  let out = "";
  for (let round = 0; out.length < 9; round++) {
    for (let i = 0; i < id.length; i++) {
      h ^= id.charCodeAt(i) + round;
      h = Math.imul(h, 0x01000193) >>> 0;
    }
    let x = h;
    for (let k = 0; k < 4 && out.length < 9; k++) {
      out += ALNUM[x % ALNUM.length];
      x = Math.floor(x / ALNUM.length);
    }
  }
  return out;
}

/**
 * After `[TOOL_CALLS]name`: an optional `[CALL_ID]id`, an optional `[ARGS]` (missing when the tokenizer
 * dropped special tokens), then the JSON arguments.
 */
class NamedCallHeader implements Region {
  private raw: string;
  private id = "";
  private inId = false;
  private inner: Region | null = null;

  constructor(
    private readonly ctx: EngineContext,
    opener: string,
    private readonly name: string,
  ) {
    this.raw = opener;
  }

  feed(text: string, from: number, final: boolean): FeedResult {
    if (this.inner) return this.inner.feed(text, from, final);
    const n = text.length;
    let i = from;
    for (;;) {
      if (this.inId) {
        const start = i;
        while (i < n && /[A-Za-z0-9_-]/.test(text[i]!) && this.id.length + (i - start) < 64) i++;
        this.id += text.slice(start, i);
        this.raw += text.slice(start, i);
        if (i === n) return final ? this.truncate(n) : { pos: n, done: false };
        this.inId = false;
      }
      const start = i;
      while (i < n && isWs(text.charCodeAt(i))) i++;
      this.raw += text.slice(start, i);
      if (i === n) return final ? this.truncate(n) : { pos: n, done: false };
      if (text.startsWith(CALL_ID, i)) {
        this.raw += CALL_ID;
        i += CALL_ID.length;
        this.inId = true;
        continue;
      }
      if (text.startsWith(ARGS, i)) {
        this.raw += ARGS;
        i += ARGS.length;
        continue;
      }
      if (text[i] === "{") {
        const name = this.name;
        this.inner = namedArgumentsRegion(this.ctx, name, {
          opener: this.raw,
          id: this.id || undefined,
          valueStart: "{",
          example: V11_EXAMPLE,
          what: `the arguments of ${TOOL_CALLS}${name}`,
        });
        return this.inner.feed(text, i, final);
      }
      const rest = text.slice(i);
      if (rest.length < CALL_ID.length && (CALL_ID.startsWith(rest) || ARGS.startsWith(rest))) {
        if (!final) return { pos: i, done: false };
        this.raw += rest;
        return this.truncate(n);
      }
      this.ctx.emit({
        type: "parse-error",
        raw: this.raw,
        message: `${TOOL_CALLS}${this.name} must be followed by ${ARGS} and the JSON arguments; send the call as ${V11_EXAMPLE}`,
      });
      return { pos: i, done: true };
    }
  }

  finish(): void {
    if (this.inner) this.inner.finish();
    else this.truncate(0);
  }

  private truncate(pos: number): FeedResult {
    this.ctx.emit({
      type: "truncated",
      raw: this.raw,
      message: `the output ended inside a call (after ${JSON.stringify(this.raw)}), so it was not run; send the complete call as ${V11_EXAMPLE}`,
    });
    return { pos, done: true };
  }
}

/** `[TOOL_CALLS]` with nothing readable after it. */
class BareMarker implements Region {
  constructor(
    private readonly ctx: EngineContext,
    private readonly raw: string,
  ) {}

  feed(text: string, from: number, final: boolean): FeedResult {
    if (from >= text.length && !final) return { pos: from, done: false };
    if (from >= text.length) {
      this.finish();
      return { pos: from, done: true };
    }
    this.ctx.emit({
      type: "parse-error",
      raw: this.raw,
      message: `${TOOL_CALLS} must be followed by the calls; send them as ${V11_EXAMPLE} or ${V3_EXAMPLE}`,
    });
    return { pos: from, done: true };
  }

  finish(): void {
    this.ctx.emit({
      type: "truncated",
      raw: this.raw,
      message: `the output ended right after ${TOOL_CALLS}; send the complete call as ${V11_EXAMPLE}`,
    });
  }
}

/**
 * One parser for every Mistral tokenizer generation: `[TOOL_CALLS][{…}, …]` (v2/v3; also after a v11 model
 * falls back to it), `[TOOL_CALLS]name[CALL_ID]id[ARGS]{…}` repeated per call (v11+; `[ARGS]` may be missing
 * when special tokens were skipped), a bare `[{"name": …, "arguments": …}]` list (the marker was skipped), and
 * `[THINK]…[/THINK]` reasoning (Magistral).
 */
function mistralRules(): StartRule[] {
  const arrayDecode = jsonCallsDecoder(V3_EXAMPLE);
  const listDecode = jsonCallOrProseDecoder(V3_EXAMPLE);
  return [
    {
      first: "[",
      // `[` only when an object follows: `[TOOL_CALLS][TOOL_CALLS]…` (a model stuck repeating the marker) is
      // then one cheap error per marker instead of a JSON value to decode and repair each time.
      pattern: [TOOL_CALLS, WS, { mark: "body" }, { alt: [["[", WS, "{"], ["{"]] }],
      open: (ctx, m) =>
        new CallBodyRegion(ctx, {
          opener: m.text,
          multiple: true,
          separators: ",",
          onNonValue: "error",
          createScanner: jsonScannerFactory,
          isCallPath: (p) => p.length === 0 || (p.length === 1 && typeof p[0] === "number"),
          decode: arrayDecode,
          example: V3_EXAMPLE,
          what: `the JSON after ${TOOL_CALLS}`,
        }),
    },
    {
      first: "[",
      pattern: [TOOL_CALLS, WS, { ident: "name" }],
      open: (ctx, m) => new NamedCallHeader(ctx, m.text, m.captures.name!),
    },
    { first: "[", pattern: [TOOL_CALLS], open: (ctx, m) => new BareMarker(ctx, m.text) },
    {
      first: "[",
      pattern: [{ mark: "body" }, "[", WS, "{", WS, { alt: [['"name"'], ["'name'"]] }],
      open: (ctx, m) =>
        new CallBodyRegion(ctx, {
          opener: m.text,
          onNonValue: "revert",
          startOnArguments: true,
          createScanner: jsonScannerFactory,
          isCallPath: (p) => p.length === 1 && typeof p[0] === "number",
          decode: listDecode,
          example: V3_EXAMPLE,
          what: "the JSON call list",
        }),
    },
  ];
}

function createMistralParser(opts: Parameters<ToolCallProtocol["createParser"]>[0]) {
  const think = reasoningPrefix("[THINK]", "[/THINK]");
  const thinkTag = reasoningPrefix();
  return new StreamParser(
    {
      rules: [
        reasoningRule(),
        dropRule("</think>"),
        reasoningRule("[THINK]", "[/THINK]"),
        dropRule("[/THINK]"),
        dropRule("</s>"),
        ...mistralRules(),
      ],
      initialRegion: (ctx, prefix) => think(ctx, prefix) ?? thinkTag(ctx, prefix),
    },
    opts,
  );
}

function availableTools(tools: readonly Tool[]): string {
  return `[AVAILABLE_TOOLS]${JSON.stringify(tools.map(functionToolJson))}[/AVAILABLE_TOOLS]`;
}

/**
 * Mistral v3 tokenizer (Mistral 7B v0.3, Nemo, Large 2): `[TOOL_CALLS][{"name", "arguments", "id"}]` with
 * 9-character ids, results as `[TOOL_RESULTS]{"content": …, "call_id": …}[/TOOL_RESULTS]`.
 */
export const mistralV3Protocol: ToolCallProtocol = {
  id: "mistral_v3",
  description: "Mistral v3 [TOOL_CALLS][{…}] JSON list",
  resultRole: "tool",
  stopSequences: ["[TOOL_RESULTS]", "</s>"],
  callStartMarkers: [TOOL_CALLS],
  callBody: "json-envelope",
  renderCatalogue(tools, opts) {
    return [
      availableTools(tools),
      "",
      `To call tools, reply with ${TOOL_CALLS} followed by a JSON list of calls, each with the tool "name", its "arguments" object and an "id" of 9 letters or digits, for example:`,
      '[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}, "id": "a1b2c3d4e"}]',
      ...oneCallOnlyLines(opts, "Put at most one call in the list."),
      ...extraInstructionLines(opts),
    ].join("\n");
  },
  renderAssistantTurn({ content, calls }) {
    if (calls.length === 0) return content ?? "";
    const list = calls.map((c) => ({ name: c.name, arguments: c.arguments, id: mistralCallId(c.id) }));
    return `${content?.trim() ?? ""}${TOOL_CALLS}${JSON.stringify(list)}`;
  },
  renderToolResults(results) {
    return results
      .map(
        (r) =>
          `[TOOL_RESULTS]${JSON.stringify({ content: resultToJsonValue(r.result), call_id: mistralCallId(r.callId) })}[/TOOL_RESULTS]`,
      )
      .join("");
  },
  createParser: createMistralParser,
};

/**
 * Mistral v11+ tokenizers (Mistral Small 3.1+, Magistral, Devstral): one `[TOOL_CALLS]name[ARGS]{…}` per call,
 * results as `[TOOL_RESULTS]…[/TOOL_RESULTS]` in call order, `[THINK]…[/THINK]` reasoning.
 */
export const mistralV11Protocol: ToolCallProtocol = {
  id: "mistral_v11",
  description: "Mistral v11+ [TOOL_CALLS]name[ARGS]{…} calls",
  resultRole: "tool",
  stopSequences: ["[TOOL_RESULTS]", "</s>"],
  callStartMarkers: [TOOL_CALLS],
  callBody: "json-arguments",
  renderCatalogue(tools, opts) {
    return [
      availableTools(tools),
      "",
      `To call a tool, reply with ${TOOL_CALLS}, the tool name, ${ARGS} and the JSON arguments, for example:`,
      '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}',
      opts?.parallel === false
        ? "Make at most one call per reply."
        : `For several calls, repeat ${TOOL_CALLS}name${ARGS}{…} once per call.`,
      ...extraInstructionLines(opts),
    ].join("\n");
  },
  renderAssistantTurn({ content, calls }) {
    const rendered = calls.map((c) => `${TOOL_CALLS}${c.name}${ARGS}${JSON.stringify(c.arguments)}`).join("");
    return `${content?.trim() ?? ""}${rendered}`;
  },
  renderToolResults(results) {
    return renderResultTexts(results, { open: "[TOOL_RESULTS]", close: "[/TOOL_RESULTS]", separator: "" });
  },
  createParser: createMistralParser,
};
