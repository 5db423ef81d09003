import type { ValueScanner } from "./call-body-region.js";
import { type JsonScanHooks, JsonScanner, type ScanStatus } from "./json-scanner.js";

/**
 * A `ValueScanner` for bodies that are a call's arguments: an object (read by the resumable `JsonScanner`) or, when a
 * model double-encodes them, a JSON string holding the object (`"{\"city\": \"Paris\"}"`), read here to its closing
 * quote. Use with `valueStart: '{"'`; `readCallArguments` then unwraps the string.
 */
export class JsonValueScanner implements ValueScanner {
  private readonly inner: JsonScanner;
  private mode: "unknown" | "string" | "container" = "unknown";
  private escape = false;
  end = 0;

  constructor(hooks: JsonScanHooks, stopMarker: string | undefined) {
    this.inner = new JsonScanner(hooks, stopMarker);
  }

  get callsSettled(): boolean {
    return this.mode === "container" && this.inner.callsSettled;
  }
  get callEndAt(): number {
    return this.mode === "container" ? this.inner.callEndAt : -1;
  }

  scan(text: string, from: number, final: boolean): ScanStatus {
    let i = from;
    if (this.mode === "unknown" && i < text.length) {
      if (text.charCodeAt(i) === 34) {
        this.mode = "string";
        i++;
      } else this.mode = "container";
    }
    if (this.mode !== "string") {
      const st = this.inner.scan(text, i, final);
      this.end = this.inner.end;
      return st;
    }
    for (; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (this.escape) this.escape = false;
      else if (c === 92) this.escape = true;
      else if (c === 34) {
        this.end = i + 1;
        return "done";
      }
    }
    this.end = text.length;
    return "more";
  }
}

export function jsonValueScannerFactory(hooks: JsonScanHooks, stopMarker: string | undefined): ValueScanner {
  return new JsonValueScanner(hooks, stopMarker);
}
