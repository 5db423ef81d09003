import type { ValueScanner } from "./call-body-region.js";
import type { CallObjectTrack, JsonScanHooks, ScanStatus } from "./json-scanner.js";

/**
 * Resumable bracket scanner for a pythonic call list `[f(a=1), g(b="x")]`: Python strings (single, double,
 * triple-quoted, with escapes) are skipped, brackets counted; it ends where the outer `[` closes. Names of
 * calls (`ident(` at depth 1) are reported as they appear so call-start can be emitted early.
 */
export class PythonScanner implements ValueScanner {
  private depth = 0;
  private quote = 0;
  private triple = false;
  private escape = false;
  /** consecutive quote chars seen (to detect triple quotes and their end) */
  private quoteRun = 0;
  private ident = "";
  private ordinal = 0;
  private sawCall = false;
  private lastSig = 0;
  /** The call whose `(` was seen, until its first keyword argument announces it. */
  private pendingCall: CallObjectTrack | null = null;
  end = 0;
  /** Index in the last scanned text just after the last call that closed there (`f(…)` at list level), or -1. */
  callEndAt = -1;

  /** `bare`: the calls are not inside `[…]` (e.g. between `<|python_start|>` and `<|python_end|>`). */
  constructor(
    private readonly hooks: JsonScanHooks,
    private readonly stopMarker?: string,
    private readonly bare = false,
  ) {
    if (bare) this.depth = 1;
  }

  get callsSettled(): boolean {
    // `[f(a=1)` (the list's `]` cut off) or, bare, `[f(a=1)]` with the end marker missing: every call closed.
    if (this.quote !== 0 || this.depth !== 1) return false;
    return (this.sawCall && this.lastSig === 41) || (this.bare && this.lastSig === 93);
  }

  scan(text: string, from: number, final: boolean): ScanStatus {
    const n = text.length;
    const stop = this.stopMarker;
    this.callEndAt = -1;
    for (let i = from; i < n; i++) {
      const c = text.charCodeAt(i);
      if (this.quote !== 0) {
        if (this.escape) {
          this.escape = false;
          continue;
        }
        if (c === 92) {
          this.escape = true;
          this.quoteRun = 0;
          continue;
        }
        if (c === this.quote) {
          if (!this.triple) {
            this.quote = 0;
            this.lastSig = c;
            continue;
          }
          this.quoteRun++;
          if (this.quoteRun === 3) {
            this.quote = 0;
            this.triple = false;
            this.lastSig = c;
          }
          continue;
        }
        this.quoteRun = 0;
        continue;
      }
      if (c === 34 || c === 39) {
        if (text.charCodeAt(i + 1) === c && text.charCodeAt(i + 2) === c) {
          this.quote = c;
          this.triple = true;
          this.quoteRun = 0;
          i += 2;
        } else if (i + 2 >= n && !final && (i + 1 >= n || text.charCodeAt(i + 1) === c)) {
          // Cannot tell `"` from `"""` yet.
          this.end = i;
          return "hold";
        } else {
          this.quote = c;
          this.triple = false;
        }
        this.ident = "";
        continue;
      }
      if (stop && c === stop.charCodeAt(0)) {
        if (text.startsWith(stop, i)) {
          this.end = i;
          return "stopped";
        }
        if (!final && n - i < stop.length && stop.startsWith(text.slice(i))) {
          this.end = i;
          return "hold";
        }
      }
      if (c === 41 && this.depth === 2) this.pendingCall = null;
      if (c === 40 || c === 91 || c === 123) {
        if (c === 40 && this.depth === 1 && this.ident !== "") {
          // Announced at its first keyword argument (below), not here: `[see f(x)]` in prose is no call, and
          // its text must be given back untouched.
          this.pendingCall = {
            ordinal: this.ordinal++,
            members: { name: this.ident },
            argsOpen: true,
            argsClosed: false,
          };
          this.sawCall = true;
        }
        this.depth++;
        this.ident = "";
      } else if (c === 41 || c === 93 || c === 125) {
        this.depth--;
        this.ident = "";
        if (c === 41 && this.depth === 1 && this.sawCall) this.callEndAt = i + 1;
        if (this.depth <= 0) {
          this.end = i + 1;
          return "done";
        }
      } else if (
        (c >= 65 && c <= 90) ||
        (c >= 97 && c <= 122) ||
        c === 95 ||
        (this.ident !== "" && ((c >= 48 && c <= 57) || c === 46 || c === 45))
      ) {
        if (this.depth === 1 && this.ident.length < 256) this.ident += text[i];
      } else if (c === 61 && this.depth === 2 && this.pendingCall !== null && isIdentCode(this.lastSig)) {
        if (text.charCodeAt(i + 1) !== 61) {
          const call = this.pendingCall;
          this.pendingCall = null;
          this.hooks.onCallMember?.(call, "name", call.members.name!);
        }
        this.ident = "";
      } else if (c !== 32 && c !== 10 && c !== 13 && c !== 9) {
        this.ident = "";
      }
      if (c !== 32 && c !== 10 && c !== 13 && c !== 9) this.lastSig = c;
    }
    this.end = n;
    return "more";
  }
}

function isIdentCode(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95;
}
