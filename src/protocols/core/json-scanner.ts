/**
 * A resumable, structure-only JSON scanner. It walks the text once, keeps its state between chunks, and
 * reports where the top-level value ends — so a streaming parser never re-reads a growing buffer. It is
 * lenient like the models it reads: single-quoted strings are strings, unknown characters are skipped,
 * and a stop marker (e.g. `</tool_call>`) seen outside a string ends the scan early.
 *
 * It also follows "call objects" (objects at paths the format names, e.g. `tool_calls[i]`) to report their
 * name as soon as it is known and where their arguments value begins and ends (for argument deltas).
 */

export type JsonPath = readonly (string | number)[];

export interface CallObjectTrack {
  /** Order of this call object within the scanned value, from 0. */
  ordinal: number;
  /** String members seen so far (raw text, capped). */
  members: Record<string, string>;
  /** Set while the arguments value is open or once it closed. */
  argsOpen: boolean;
  argsClosed: boolean;
}

export interface JsonScanHooks {
  /** Is the object opened at `path` a call object? Called only for paths of depth ≤ 4. */
  isCallPath(path: JsonPath): boolean;
  onCallMember?(call: CallObjectTrack, key: string, value: string): void;
  onArgsStart?(call: CallObjectTrack, index: number): void;
  onArgsEnd?(call: CallObjectTrack, index: number): void;
}

export const ARGUMENT_KEYS: ReadonlySet<string> = new Set(["arguments", "parameters", "args", "input"]);

interface Frame {
  obj: boolean;
  key: string | null;
  index: number;
  expectKey: boolean;
  call: CallObjectTrack | null;
  /** this container is the arguments value of the enclosing call */
  argsOf: CallObjectTrack | null;
}

export type ScanStatus =
  /** the top-level value ended; `end` is the index after it */
  | "done"
  /** text exhausted, value still open */
  | "more"
  /** stop marker found outside a string at `end` */
  | "stopped"
  /** a possible partial stop marker starts at `end`; hold text from there back */
  | "hold";

const MAX_CAPTURE = 256;
const MAX_PATH_DEPTH = 4;
/**
 * Containers nested deeper than this are only counted, not given a frame: no call is that deep, and a run of
 * `[[[[…` (a model stuck on an opener) would otherwise keep an object per character alive until the end.
 */
const MAX_FRAMES = 128;

export class JsonScanner {
  private readonly frames: Frame[] = [];
  private inString = false;
  private quote = 0;
  private escape = false;
  private strIsKey = false;
  /** capture target: 1 key, 2 call member value, 0 none */
  private capture = 0;
  private capBuf = "";
  private stringArgsOf: CallObjectTrack | null = null;
  /** last significant char code outside strings, to tell a single-quoted string from an apostrophe */
  private lastSig = 0;
  private ordinal = 0;
  private openCalls = 0;
  private started = false;
  /** Containers open beyond `MAX_FRAMES`. */
  private deep = 0;
  end = 0;
  /** Index in the last scanned text just after the last call object that closed there, or -1. */
  callEndAt = -1;

  constructor(
    private readonly hooks: JsonScanHooks,
    private readonly stopMarker?: string,
  ) {}

  get isInString(): boolean {
    return this.inString;
  }
  get depth(): number {
    return this.frames.length + this.deep;
  }
  /**
   * True when only the closers of what encloses the calls are missing (a list, an envelope): not inside a
   * string and no call object still open. A call object cut off before its own `}` is incomplete — even
   * with its arguments closed, a member may have been cut off after them — so it is truncated, not a call.
   */
  get callsSettled(): boolean {
    return (
      this.ordinal > 0 && !this.inString && this.frames.every((f) => f.argsOf === null && f.call === null)
    );
  }

  /** The innermost open container (never reads `frames[-1]`: an out-of-range index is a slow lookup in V8). */
  private top(): Frame | undefined {
    const frames = this.frames;
    return frames.length > 0 ? frames[frames.length - 1] : undefined;
  }

  scan(text: string, from: number, final: boolean): ScanStatus {
    const n = text.length;
    const stop = this.stopMarker;
    const stopCode = stop ? stop.charCodeAt(0) : -1;
    let capStart = from;
    let i = from;
    this.callEndAt = -1;
    while (i < n) {
      let c = text.charCodeAt(i);
      if (this.inString) {
        // Fast path through string content.
        if (this.escape) {
          this.escape = false;
          i++;
          continue;
        }
        const q = this.quote;
        while (c !== q && c !== 92) {
          i++;
          if (i >= n) break;
          c = text.charCodeAt(i);
        }
        if (i >= n) break;
        if (c === 92) {
          this.escape = true;
          i++;
          continue;
        }
        this.closeString(text, capStart, i);
        i++;
        continue;
      }
      switch (c) {
        case 123: // {
        case 91: {
          // [
          this.openContainer(c === 123, i);
          break;
        }
        case 125: // }
        case 93: {
          // ]
          if (this.deep > 0) {
            this.deep--;
            break;
          }
          const f = this.frames.pop();
          if (f?.call) {
            this.openCalls--;
            this.callEndAt = i + 1;
          }
          if (f?.argsOf) {
            f.argsOf.argsOpen = false;
            f.argsOf.argsClosed = true;
            this.hooks.onArgsEnd?.(f.argsOf, i + 1);
          }
          if (this.frames.length === 0 && this.started) {
            this.end = i + 1;
            return "done";
          }
          break;
        }
        case 34: // "
        case 39: {
          // '
          if (
            c === 39 &&
            !(this.lastSig === 123 || this.lastSig === 91 || this.lastSig === 44 || this.lastSig === 58)
          ) {
            break;
          }
          this.openString(c, i);
          capStart = i + 1;
          break;
        }
        case 58: {
          // :
          const top = this.top();
          if (top?.obj) top.expectKey = false;
          break;
        }
        case 44: {
          // ,
          const top = this.top();
          if (top) {
            if (top.obj) {
              top.expectKey = true;
              top.key = null;
            } else top.index++;
          }
          break;
        }
        default:
          if (c === stopCode && stop) {
            if (text.startsWith(stop, i)) {
              this.end = i;
              return "stopped";
            }
            if (!final && n - i < stop.length && stop.startsWith(text.slice(i))) {
              this.end = i;
              return "hold";
            }
          }
      }
      if (c !== 32 && c !== 10 && c !== 13 && c !== 9) this.lastSig = c;
      i++;
    }
    if (this.inString && this.capture !== 0) {
      if (this.capBuf.length < MAX_CAPTURE)
        this.capBuf += text.slice(capStart, Math.min(n, capStart + MAX_CAPTURE));
    }
    this.end = n;
    return "more";
  }

  private openContainer(obj: boolean, i: number): void {
    this.started = true;
    if (this.frames.length >= MAX_FRAMES) {
      this.deep++;
      return;
    }
    const parent = this.top();
    const frame: Frame = { obj, key: null, index: 0, expectKey: obj, call: null, argsOf: null };
    if (
      parent?.call &&
      parent.obj &&
      !parent.expectKey &&
      parent.key !== null &&
      ARGUMENT_KEYS.has(parent.key)
    ) {
      const call = parent.call;
      if (!call.argsOpen && !call.argsClosed) {
        frame.argsOf = call;
        call.argsOpen = true;
        this.hooks.onArgsStart?.(call, i);
      }
    }
    if (obj && this.frames.length < MAX_PATH_DEPTH && this.openCalls === 0) {
      const path = this.frames.map((f) => (f.obj ? (f.key ?? "") : f.index));
      if (this.hooks.isCallPath(path)) {
        frame.call = { ordinal: this.ordinal++, members: {}, argsOpen: false, argsClosed: false };
        this.openCalls++;
      }
    }
    this.frames.push(frame);
  }

  private openString(q: number, i: number): void {
    this.inString = true;
    this.quote = q;
    this.escape = false;
    const top = this.top();
    this.strIsKey = top?.obj === true && top.expectKey;
    this.capBuf = "";
    this.capture = 0;
    this.stringArgsOf = null;
    if (!top) return;
    if (this.strIsKey) {
      if (this.frames.length <= MAX_PATH_DEPTH) this.capture = 1;
    } else if (top.call && top.key !== null) {
      if (ARGUMENT_KEYS.has(top.key) && !top.call.argsOpen && !top.call.argsClosed) {
        this.stringArgsOf = top.call;
        top.call.argsOpen = true;
        this.hooks.onArgsStart?.(top.call, i);
      } else this.capture = 2;
    }
  }

  private closeString(text: string, capStart: number, i: number): void {
    this.inString = false;
    this.lastSig = this.quote;
    const top = this.top();
    if (this.capture !== 0 && top) {
      let value = this.capBuf;
      if (value.length < MAX_CAPTURE) value += text.slice(capStart, Math.min(i, capStart + MAX_CAPTURE));
      value = unescapeCaptured(value);
      if (this.capture === 1) top.key = value;
      else if (top.call && top.key !== null) {
        top.call.members[top.key] = value;
        this.hooks.onCallMember?.(top.call, top.key, value);
      }
    }
    if (this.stringArgsOf) {
      this.stringArgsOf.argsOpen = false;
      this.stringArgsOf.argsClosed = true;
      this.hooks.onArgsEnd?.(this.stringArgsOf, i + 1);
      this.stringArgsOf = null;
    }
    this.capture = 0;
  }
}

function unescapeCaptured(raw: string): string {
  if (!raw.includes("\\")) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw;
  }
}
