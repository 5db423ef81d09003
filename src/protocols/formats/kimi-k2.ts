import { JsonScanner } from "../core/json-scanner.js";
import { isWs, partialMarkerSuffix } from "../core/match-pattern.js";
import { readSteps, type Step } from "../core/read-steps.js";
import { dropRule } from "../core/reasoning-region.js";
import { resultToText } from "../core/render-helpers.js";
import type { EngineContext, FeedResult, Region } from "../core/stream-engine.js";
import { readCallArguments } from "../decode-call-arguments.js";
import type { ToolCallProtocol } from "../protocol.js";
import { extraInstructionLines, oneCallOnlyLines } from "../render/catalogue-option-lines.js";
import { functionToolJson } from "../render/function-tool-json.js";
import { createThinkingParser } from "./shared-thinking-parser.js";

const SECTION_BEGIN = "<|tool_calls_section_begin|>";
const SECTION_END = "<|tool_calls_section_end|>";
/** Kimi models also write the section tokens in the singular. */
const SECTION_BEGIN_ALT = "<|tool_call_section_begin|>";
const SECTION_END_ALT = "<|tool_call_section_end|>";
const CALL_BEGIN = "<|tool_call_begin|>";
const ARGS_BEGIN = "<|tool_call_argument_begin|>";
const CALL_END = "<|tool_call_end|>";

const EXAMPLE = `${SECTION_BEGIN}${CALL_BEGIN}functions.get_weather:0${ARGS_BEGIN}{"city": "Paris"}${CALL_END}${SECTION_END}`;
const MAX_ID = 512;
const SKIP_UNTIL = [CALL_END, CALL_BEGIN, SECTION_END, SECTION_END_ALT];

const CALL_ID = /^functions\.([A-Za-z_][\w.-]*?)(?::\d+)?$|^([A-Za-z_][\w.-]*):\d+$/;

/**
 * `functions.get_weather:0` → `get_weather` (dots inside the name are kept: `functions.math.sqrt:1`). Models
 * drop one part at times (`functions.get_weather`, `get_weather:0`); with neither (`invalid.0`) it is no id: null.
 */
function nameFromCallId(id: string): string | null {
  const m = CALL_ID.exec(id.trim());
  return m ? (m[1] ?? m[2] ?? null) : null;
}

type Probe = "yes" | "partial" | "no";

function probe(text: string, at: number, marker: string, final: boolean): Probe {
  if (text.startsWith(marker, at)) return "yes";
  return !final && text.length - at < marker.length && marker.startsWith(text.slice(at)) ? "partial" : "no";
}

/**
 * The tool-calls section: `<|tool_call_begin|>id<|tool_call_argument_begin|>{json}<|tool_call_end|>`, repeated,
 * until the section end. The call id names the function; the arguments are JSON, read leniently.
 */

class KimiCallsRegion implements Region {
  private state: "between" | "id" | "args" | "argsTrail" | "skip" = "between";
  private scanner: JsonScanner | null = null;
  private raw: string;
  private calls = 0;
  private current: { index: number; id: string; name: string; rawFrom: number } | null = null;
  private args = "";

  constructor(
    private readonly ctx: EngineContext,
    opener: string,
    bareCall: boolean,
  ) {
    this.raw = opener;
    if (bareCall) this.state = "id";
  }

  feed(text: string, from: number, final: boolean): FeedResult {
    return readSteps(from, (i) => this.step(text, i, final));
  }

  /** Reads from `i` in the current state: where to go on (the state may have changed), or what to answer. */
  private step(text: string, i: number, final: boolean): Step {
    switch (this.state) {
      case "between":
        return this.readBetweenCalls(text, i, final);
      case "id":
        return this.readCallId(text, i, final);
      case "skip":
        return this.skipRejectedCall(text, i, final);
      case "args":
        return this.readArguments(text, i, final);
      case "argsTrail":
        return this.readAfterArguments(text, i, final);
    }
  }

  /** Between calls: the next call, the section end, prose after the calls, or noise before the first. */
  private readBetweenCalls(text: string, i: number, final: boolean): Step {
    const n = text.length;
    let j = i;
    while (j < n && isWs(text.charCodeAt(j))) j++;
    i = this.take(text, i, j);
    if (i === n) return final && this.calls > 0 ? { pos: n, done: true } : { pos: n, done: false };
    let verdict: Probe = "no";
    for (const end of [SECTION_END, SECTION_END_ALT]) {
      const p = probe(text, i, end, final);
      if (p === "yes") {
        i = this.take(text, i, i + end.length);
        return { pos: i, done: true };
      }
      if (p === "partial") verdict = "partial";
    }
    const cb = probe(text, i, CALL_BEGIN, final);
    if (cb === "yes") {
      i = this.take(text, i, i + CALL_BEGIN.length);
      this.state = "id";
      return i;
    }
    if (cb === "partial" || verdict === "partial") return { pos: i, done: false };
    // Prose after the calls (the section end was left out) is content again.
    if (this.calls > 0) return { pos: i, done: true };
    // Noise between the section start and the first call is dropped.
    const lt = text.indexOf("<", i + 1);
    i = this.take(text, i, lt === -1 ? n : lt);
    if (i === n) return { pos: n, done: false };
    return i;
  }

  /** The call id (`functions.name:0`), up to the argument token. */
  private readCallId(text: string, i: number, final: boolean): Step {
    const n = text.length;
    // The id runs up to the argument token; any other special token first means it is no id (markup
    // never becomes part of a name). Held back whole until decided: bounded by MAX_ID.
    const lt = text.indexOf("<|", i);
    if (lt === -1 || lt - i > MAX_ID) {
      if (n - i <= MAX_ID && lt === -1) return { pos: i, done: false };
      i = this.badId(text, i, Math.min(n, i + MAX_ID), "is longer than an id can be");
      if (i === n) return { pos: n, done: false };
      return i;
    }
    const ab = probe(text, lt, ARGS_BEGIN, final);
    if (ab === "partial") return { pos: i, done: false };
    if (ab === "no") {
      i = this.badId(text, i, lt, "is followed by markup instead of " + ARGS_BEGIN);
      return i;
    }
    const id = text.slice(i, lt).trim();
    const name = nameFromCallId(id);
    const rawFrom = Math.max(0, this.raw.length - CALL_BEGIN.length);
    i = this.take(text, i, lt + ARGS_BEGIN.length);
    if (name === null) {
      this.current = { index: -1, id, name: id, rawFrom };
    } else {
      const started = this.ctx.startCall(name, id);
      this.current = { ...started, name, rawFrom };
    }
    this.args = "";
    this.scanner = new JsonScanner({ isCallPath: () => false }, CALL_END);
    this.state = "args";
    return i;
  }

  /** The rest of a call whose id was rejected, up to the next call or the section end. */
  private skipRejectedCall(text: string, i: number, final: boolean): Step {
    const n = text.length;
    // The rest of a call whose id was rejected (its arguments), up to the next call or the section end.
    // (one pass over the `<|` in the text: searching each marker to the end would be quadratic)
    let at = -1;
    for (let k = text.indexOf("<|", i); k >= 0; k = text.indexOf("<|", k + 2)) {
      if (SKIP_UNTIL.some((m) => text.startsWith(m, k))) {
        at = k;
        break;
      }
    }
    let hold = 0;
    if (!final) for (const m of SKIP_UNTIL) hold = Math.max(hold, partialMarkerSuffix(text, i, m));
    if (at === -1) {
      i = this.take(text, i, n - hold);
      return { pos: i, done: false };
    }
    i = this.take(text, i, text.startsWith(CALL_END, at) ? at + CALL_END.length : at);
    this.state = "between";
    return i;
  }

  /** The arguments, scanned as JSON so that the end token inside a string does not end them. */
  private readArguments(text: string, i: number, final: boolean): Step {
    // The arguments are scanned as JSON, so the end token inside a string does not end them.
    const cur = this.current!;
    const scanner = this.scanner!;
    const st = scanner.scan(text, i, final);
    this.addArgs(cur.index, text.slice(i, scanner.end));
    i = this.take(text, i, scanner.end);
    if (st === "more" || st === "hold") return { pos: i, done: false };
    if (st === "stopped") {
      i = this.take(text, i, i + CALL_END.length);
      this.endCall(false);
      this.state = "between";
      return i;
    }
    this.state = "argsTrail";
    return i;
  }

  /** After the JSON: the call end token, or where a left-out one would have been. */
  private readAfterArguments(text: string, i: number, final: boolean): Step {
    const n = text.length;
    const cur = this.current!;
    let j = i;
    while (j < n && isWs(text.charCodeAt(j))) j++;
    if (j === n) return { pos: i, done: false };
    const ce = probe(text, j, CALL_END, final);
    if (ce === "yes") {
      i = this.take(text, i, j + CALL_END.length);
      this.endCall(false);
      this.state = "between";
      return i;
    }
    let verdict: Probe = ce;
    for (const m of [SECTION_END, SECTION_END_ALT, CALL_BEGIN]) {
      const p = probe(text, j, m, final);
      if (p === "yes") {
        // The call end token was left out: the arguments end here.
        i = this.take(text, i, j);
        this.endCall(true);
        this.state = "between";
        verdict = "yes";
        break;
      }
      if (p === "partial") verdict = "partial";
    }
    if (verdict === "yes") return i;
    if (verdict === "partial") return { pos: i, done: false };
    // Trailing text (a closing code fence): part of the arguments text, decoded leniently.
    const lt = text.indexOf("<", j + 1);
    const to = lt === -1 ? n : lt;
    this.addArgs(cur.index, text.slice(i, to));
    i = this.take(text, i, to);
    if (i === n) return { pos: n, done: false };
    return i;
  }

  private addArgs(index: number, piece: string): void {
    this.args += piece;
    if (index >= 0) this.ctx.emit({ type: "call-args-delta", index, text: piece });
  }

  /** A call whose id is not one: reported, and reading goes on at the next token. */
  private badId(text: string, i: number, to: number, why: string): number {
    this.ctx.emit({
      type: "parse-error",
      raw: CALL_BEGIN + text.slice(i, to),
      message: `the call id ${JSON.stringify(text.slice(i, to).trim().slice(0, 80))} ${why}; send the call as ${EXAMPLE}`,
    });
    this.calls++;
    this.state = "skip";
    // Raw text is kept per call: slicing one growing string per call would copy it all each time.
    this.raw = "";
    return to;
  }

  /** Appends `text[from..to)` to the raw text of the region and returns `to`. */
  private take(text: string, from: number, to: number): number {
    this.raw += text.slice(from, to);
    return to;
  }

  finish(): void {
    if ((this.state === "between" || this.state === "skip") && this.calls > 0) return;
    if (this.state === "argsTrail") {
      // The JSON arguments were complete; only the end tokens are missing.
      this.endCall(true);
      return;
    }
    const message = `the output ended inside a call (the tool-calls section is incomplete), so it was not run; send the complete call as ${EXAMPLE}`;
    const cur = this.current;
    if (cur && cur.index >= 0)
      this.ctx.emit({ type: "truncated", index: cur.index, raw: this.raw.slice(cur.rawFrom), message });
    else this.ctx.emit({ type: "truncated", raw: this.raw, message });
  }

  private endCall(unclosed: boolean): void {
    const cur = this.current!;
    this.current = null;
    this.calls++;
    const raw = this.raw.slice(cur.rawFrom);
    this.raw = "";
    if (cur.index < 0) {
      this.ctx.emit({
        type: "parse-error",
        raw,
        message: `the call id ${JSON.stringify(cur.id.slice(0, 80))} is not functions.<name>:<n>, so the call was not run; send it as ${EXAMPLE}`,
      });
      return;
    }
    const d = readCallArguments(this.args, `the arguments of "${cur.name}"`);
    if (!d.ok) {
      this.ctx.emit({
        type: "parse-error",
        index: cur.index,
        raw,
        message: `${d.error}; send the call as ${EXAMPLE}`,
      });
      return;
    }
    this.ctx.endCall(
      cur.index,
      { id: cur.id, name: cur.name, arguments: d.value },
      raw,
      d.repaired || unclosed,
    );
  }
}

/** The id Kimi's template writes for a call: `functions.<name>:<index>`. */
function callIdFor(id: string, name: string, index: number): string {
  return id.startsWith(`functions.${name}:`) && /:\d+$/.test(id) ? id : `functions.${name}:${index}`;
}

/**
 * Kimi-K2: `<|tool_calls_section_begin|><|tool_call_begin|>functions.name:0<|tool_call_argument_begin|>{json}
 * <|tool_call_end|><|tool_calls_section_end|>`. The call id (`functions.<name>:<n>`) names the function and is
 * kept as the call's id; a result answers it as `## Return of <id>`. Kimi-K2-Thinking reasons in `<think>`.
 */
export const kimiK2Protocol: ToolCallProtocol = {
  id: "kimi_k2",
  description: "Kimi-K2 <|tool_calls_section_begin|><|tool_call_begin|>functions.name:0 … special tokens",
  resultRole: "tool",
  stopSequences: ["<|im_end|>"],
  callStartMarkers: [SECTION_BEGIN, CALL_BEGIN],
  callBody: "json-arguments",
  renderCatalogue(tools, opts) {
    return [
      "# Tools",
      "",
      "You can call these tools (OpenAI function JSON):",
      JSON.stringify(tools.map(functionToolJson)),
      "",
      "To call tools, write the calls in one tool-calls section; number the calls from 0:",
      `${SECTION_BEGIN}${CALL_BEGIN}functions.<tool-name>:0${ARGS_BEGIN}<args-json-object>${CALL_END}${SECTION_END}`,
      ...oneCallOnlyLines(opts, "Call at most one tool per reply."),
      ...extraInstructionLines(opts),
    ].join("\n");
  },
  renderAssistantTurn({ content, calls }) {
    if (calls.length === 0) return content ?? "";
    const body = calls
      .map(
        (c, i) =>
          `${CALL_BEGIN}${callIdFor(c.id, c.name, i)}${ARGS_BEGIN}${JSON.stringify(c.arguments)}${CALL_END}`,
      )
      .join("");
    const c = content?.trim() ?? "";
    // The template puts the section right after the text, without a separator.
    return c === "" ? `${SECTION_BEGIN}${body}${SECTION_END}` : `${c}${SECTION_BEGIN}${body}${SECTION_END}`;
  },
  renderToolResults(results) {
    return results.map((r) => `## Return of ${r.callId}\n${resultToText(r.result)}`).join("\n\n");
  },
  createParser(opts) {
    return createThinkingParser(
      [
        dropRule("<|im_end|>"),
        dropRule(SECTION_END),
        dropRule(SECTION_END_ALT),
        { first: "<", pattern: [SECTION_BEGIN], open: (ctx, m) => new KimiCallsRegion(ctx, m.text, false) },
        {
          first: "<",
          pattern: [SECTION_BEGIN_ALT],
          open: (ctx, m) => new KimiCallsRegion(ctx, m.text, false),
        },
        { first: "<", pattern: [CALL_BEGIN], open: (ctx, m) => new KimiCallsRegion(ctx, m.text, true) },
      ],
      opts,
      {
        // As vLLM's Kimi-K2 reasoning parser: the tool-calls section ends reasoning left unclosed.
        reasoningEndsAt: [SECTION_BEGIN, SECTION_BEGIN_ALT],
        strayClosers: [SECTION_END, SECTION_END_ALT, CALL_END],
      },
    );
  },
};
