/**
 * A parser for pythonic tool calls — `[f(a=1, b="x"), mod.g(c=[1, 2], d={"k": True})]` — that reads
 * Python literals without evaluating anything. Bare names become their text (`x=my_var` → "my_var"), as
 * BFCL does; nested calls and subscripts become their source text.
 */

export interface PythonCall {
  name: string;
  arguments: Record<string, unknown>;
}

export type PythonParseResult = { ok: true; calls: PythonCall[] } | { ok: false; error: string };

class PyError extends Error {}

export function parsePythonCalls(source: string): PythonParseResult {
  const p = new Parser(source);
  try {
    const calls = p.parseCallList();
    return { ok: true, calls };
  } catch (e) {
    if (e instanceof PyError || e instanceof RangeError) return { ok: false, error: e.message };
    return { ok: false, error: String(e) };
  }
}

const MAX_DEPTH = 200;

class Parser {
  private i = 0;
  private depth = 0;
  constructor(private readonly s: string) {}

  private fail(what: string): never {
    const near = this.s.slice(this.i, this.i + 20);
    throw new PyError(`${what} at character ${this.i}${near ? ` (near \`${near}\`)` : " (at the end)"}`);
  }

  private ws(): void {
    const s = this.s;
    while (this.i < s.length) {
      const c = s[this.i]!;
      if (c === " " || c === "\n" || c === "\t" || c === "\r") this.i++;
      else if (c === "#") {
        while (this.i < s.length && s[this.i] !== "\n") this.i++;
      } else break;
    }
  }

  private eat(ch: string): boolean {
    this.ws();
    if (this.s.startsWith(ch, this.i)) {
      this.i += ch.length;
      return true;
    }
    return false;
  }

  parseCallList(): PythonCall[] {
    this.ws();
    const bracketed = this.eat("[");
    const calls: PythonCall[] = [];
    for (;;) {
      this.ws();
      if (bracketed && this.eat("]")) break;
      if (!bracketed && this.i >= this.s.length) break;
      calls.push(this.parseCall());
      this.ws();
      if (this.eat(",")) continue;
      if (bracketed) {
        if (this.eat("]")) break;
        this.fail("expected `,` or `]` after a call");
      }
      if (this.i < this.s.length) this.fail("expected `,` between calls");
    }
    this.ws();
    if (this.i < this.s.length) this.fail("unexpected text after the call list");
    return calls;
  }

  private name(): string {
    this.ws();
    const m = /[A-Za-z_][A-Za-z0-9_]*(?:\s*\.\s*[A-Za-z_][A-Za-z0-9_-]*)*/y;
    m.lastIndex = this.i;
    const r = m.exec(this.s);
    if (!r) this.fail("expected a function name");
    this.i = m.lastIndex;
    return r[0].replace(/\s+/g, "");
  }

  private parseCall(): PythonCall {
    const name = this.name();
    if (!this.eat("(")) this.fail(`expected \`(\` after \`${name}\``);
    const args: Record<string, unknown> = {};
    for (;;) {
      if (this.eat(")")) break;
      this.ws();
      const m = /([A-Za-z_][A-Za-z0-9_]*)\s*=(?!=)/y;
      m.lastIndex = this.i;
      const r = m.exec(this.s);
      if (!r) this.fail(`arguments of \`${name}\` must be keyword arguments (name=value)`);
      this.i = m.lastIndex;
      args[r[1]!] = this.value();
      if (this.eat(",")) continue;
      if (this.eat(")")) break;
      this.fail(`expected \`,\` or \`)\` in the call to \`${name}\``);
    }
    return { name, arguments: args };
  }

  private value(): unknown {
    if (++this.depth > MAX_DEPTH) this.fail("values nest too deeply");
    try {
      return this.valueInner();
    } finally {
      this.depth--;
    }
  }

  private valueInner(): unknown {
    this.ws();
    const s = this.s;
    const c = s[this.i];
    if (c === undefined) this.fail("expected a value");
    if (c === "[") {
      this.i++;
      return this.sequence("]");
    }
    if (c === "(") {
      this.i++;
      return this.sequence(")");
    }
    if (c === "{") {
      this.i++;
      return this.dict();
    }
    if (
      c === "-" ||
      c === "+" ||
      (c >= "0" && c <= "9") ||
      (c === "." && /[0-9]/.test(s[this.i + 1] ?? ""))
    ) {
      return this.number();
    }
    const strStart = /(?:[rRuUbBfF]{1,2})?(['"])/y;
    strStart.lastIndex = this.i;
    if (strStart.exec(s)) {
      let out = this.string();
      // Adjacent literals concatenate: "a" "b".
      for (;;) {
        const save = this.i;
        this.ws();
        strStart.lastIndex = this.i;
        if (!strStart.exec(s)) {
          this.i = save;
          break;
        }
        out += this.string();
      }
      return out;
    }
    if (/[A-Za-z_]/.test(c)) {
      const start = this.i;
      const name = this.name();
      if (name === "True" || name === "true") return true;
      if (name === "False" || name === "false") return false;
      if (name === "None" || name === "null") return null;
      this.ws();
      const next = s[this.i];
      if (next === "(" || next === "[") {
        // A nested call or subscript: keep its source text.
        this.i++;
        this.depth++;
        this.sequence(next === "(" ? ")" : "]", true);
        this.depth--;
        return s.slice(start, this.i);
      }
      return name;
    }
    return this.fail("expected a value");
  }

  private sequence(close: string, loose = false): unknown[] {
    const out: unknown[] = [];
    for (;;) {
      if (this.eat(close)) return out;
      if (loose) {
        // keyword arguments inside a nested call
        const m = /\s*[A-Za-z_][A-Za-z0-9_]*\s*=(?!=)/y;
        m.lastIndex = this.i;
        if (m.exec(this.s)) this.i = m.lastIndex;
      }
      out.push(this.value());
      if (this.eat(",")) continue;
      if (this.eat(close)) return out;
      this.fail(`expected \`,\` or \`${close}\``);
    }
  }

  private dict(): Record<string, unknown> | unknown[] {
    const out: Record<string, unknown> = {};
    let set: unknown[] | null = null;
    for (;;) {
      if (this.eat("}")) return set ?? out;
      const key = this.value();
      if (set || (!this.eat(":") && Object.keys(out).length === 0)) {
        // {a, b}: a set literal, read as a list
        set ??= [];
        set.push(key);
      } else {
        out[typeof key === "string" ? key : JSON.stringify(key)] = this.value();
      }
      if (this.eat(",")) continue;
      if (this.eat("}")) return set ?? out;
      this.fail("expected `,` or `}` in a dict");
    }
  }

  private number(): number {
    const m =
      /[-+]?\s*(?:0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|(?:\d[\d_]*)?\.?\d[\d_]*(?:[eE][-+]?\d+)?|\d[\d_]*\.)/y;
    m.lastIndex = this.i;
    const r = m.exec(this.s);
    if (!r) this.fail("expected a number");
    this.i = m.lastIndex;
    const text = r[0].replace(/[\s_]/g, "");
    const neg = text.startsWith("-");
    const body = text.replace(/^[-+]/, "");
    let v: number;
    if (/^0[xX]/.test(body)) v = Number.parseInt(body.slice(2), 16);
    else if (/^0[oO]/.test(body)) v = Number.parseInt(body.slice(2), 8);
    else if (/^0[bB]/.test(body)) v = Number.parseInt(body.slice(2), 2);
    else v = Number(body);
    if (Number.isNaN(v)) this.fail("expected a number");
    // JSON has no Infinity: a silent `null` would lose the value, so the call is refused instead.
    if (!Number.isFinite(v)) this.fail(`the number ${text} is too large for a double; send it as a string`);
    return neg ? -v : v;
  }

  private string(): string {
    const s = this.s;
    let raw = false;
    while (/[rRuUbBfF]/.test(s[this.i]!)) {
      if (s[this.i] === "r" || s[this.i] === "R") raw = true;
      this.i++;
    }
    const q = s[this.i]!;
    const triple = s.startsWith(q + q + q, this.i);
    this.i += triple ? 3 : 1;
    let out = "";
    for (;;) {
      if (this.i >= s.length) this.fail("a string is not closed");
      const c = s[this.i]!;
      if (c === q && (!triple || s.startsWith(q + q + q, this.i))) {
        this.i += triple ? 3 : 1;
        return out;
      }
      if (c === "\\") {
        const n = s[this.i + 1];
        if (n === undefined) this.fail("a string is not closed");
        if (raw) {
          out += c + n;
          this.i += 2;
          continue;
        }
        this.i += 2;
        switch (n) {
          case "n":
            out += "\n";
            break;
          case "t":
            out += "\t";
            break;
          case "r":
            out += "\r";
            break;
          case "b":
            out += "\b";
            break;
          case "f":
            out += "\f";
            break;
          case "0":
            out += "\0";
            break;
          case "\n":
            break;
          case "x":
          case "u":
          case "U": {
            const len = n === "x" ? 2 : n === "u" ? 4 : 8;
            const hex = s.slice(this.i, this.i + len);
            if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== len) this.fail(`bad \\${n} escape`);
            out += String.fromCodePoint(Number.parseInt(hex, 16));
            this.i += len;
            break;
          }
          default:
            out += n === "\\" || n === "'" || n === '"' ? n : `\\${n}`;
        }
        continue;
      }
      if (!triple && c === "\n") this.fail("a string is not closed before the line ends");
      out += c;
      this.i++;
    }
  }
}
