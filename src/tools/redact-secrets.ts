/**
 * Secret redaction for everything a tool returns (and, later, for logs and traces). Two sources of truth:
 * the actual values of secret-bearing environment variables, and the shapes of well-known credentials.
 */
export const REDACTED = "[REDACTED]";

/** Shapes of credentials that must never reach a model or a log, whatever variable they came from. */
export const DEFAULT_SECRET_PATTERNS: readonly RegExp[] = [
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
  /\bsk-ant-[A-Za-z0-9_-]{20,}/g, // Anthropic
  /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g, // OpenAI
  /\bgh[pousr]_[A-Za-z0-9]{36,}\b/g, // GitHub tokens
  /\bgithub_pat_[A-Za-z0-9_]{40,}\b/g,
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, // AWS access key ids
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, // Slack
  /\bAIza[0-9A-Za-z_-]{35}\b/g, // Google API keys
  /\bhf_[A-Za-z0-9]{30,}\b/g, // Hugging Face
  /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, // JWTs
  /(?<=\bBearer\s+)[A-Za-z0-9._~+/-]{16,}=*/gi,
  /(?<=\b(?:api[_-]?key|apikey|secret|password|passwd|token|access[_-]?token)["']?\s*[:=]\s*["']?)[^\s"',;]{8,}/gi,
  // The userinfo of a URL (`postgres://user:pass@host`, `https://user:token@host`, `mongodb+srv://u:p@cluster`, or a
  // long bare token as in `https://<token>@github.com`). The whole userinfo goes: user names are often half the
  // credential. A password may hold an unencoded `/`, so it is allowed there (a rare path with `@` is over-redacted).
  /(?<=\b[A-Za-z][A-Za-z0-9+.-]*:\/\/)(?:[^\s/?#@"'<>:]+:[^\s?#@"'<>]+|[^\s/?#@"'<>:]{16,})(?=@)/g,
  // ADO.NET / ODBC / JDBC-style connection strings: `Password=...;`, `Pwd={...}`, `password='...'` at any length
  // (the keyword pattern above wants 8 characters and stops at quotes). Values with spaces need braces or quotes.
  /(?<=(?:^|[;\s"'{?&])(?:password|pwd|passwd)\s*=\s*)(?:\{(?:[^}]|\}\})*\}|"[^"]*"|'[^']*'|[^;\s"'&]+)/gim,
];

/** Environment variable names whose values are treated as secrets by default. */
export const SECRET_ENV_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)/i;

export interface RedactorOptions {
  /** Names of environment variables whose values are secrets (in addition to those matching SECRET_ENV_NAME). */
  envVars?: readonly string[];
  /** Where to read them from; default process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Literal secret values. */
  values?: readonly string[];
  /** Extra patterns (must be global regexes). */
  patterns?: readonly RegExp[];
  /** Skip the built-in credential patterns. */
  noDefaultPatterns?: boolean;
}

/** A span `[start, end)` of a secret inside a text. */
export type SecretSpan = readonly [start: number, end: number];

/** Replaces every secret in a text with REDACTED. Also answers where the secrets are, for streaming redaction. */
export interface Redactor {
  (text: string): string;
  /** The spans of secrets in `text`, sorted, overlapping ones merged. */
  find(text: string): SecretSpan[];
  /** Length of the longest literal secret form: a streamed text must hold back one character less than this. */
  readonly longestLiteral: number;
}

/**
 * The forms a literal secret takes in text we produce or pass on: as is, and JSON-escaped (a value with a quote,
 * backslash or control character reads differently inside a JSON text block, a stored JSON column or a trace line).
 */
function literalForms(value: string): string[] {
  const escaped = JSON.stringify(value).slice(1, -1);
  return escaped === value ? [value] : [value, escaped];
}

/** Build a redactor once (collecting env values is not free) and reuse it for every result. */
export function createRedactor(options: RedactorOptions = {}): Redactor {
  const env = options.env ?? process.env;
  const named = new Set(options.envVars ?? []);
  const values = new Set<string>(options.values ?? []);
  for (const [name, value] of Object.entries(env)) {
    // Short values ("1", "true") would redact ordinary text all over the place.
    if (value && value.length >= 8 && (named.has(name) || SECRET_ENV_NAME.test(name))) values.add(value);
  }
  const literals = [...new Set([...values].filter((v) => v.length > 0).flatMap(literalForms))];
  const patterns = [
    ...(options.noDefaultPatterns ? [] : DEFAULT_SECRET_PATTERNS),
    ...(options.patterns ?? []),
  ];
  // Spans are found on the original text (literals and patterns alike) and replaced once, so one match cannot hide
  // or split another, and a secret that contains another secret is replaced whole.
  const find = (text: string): SecretSpan[] => {
    const spans: Array<[number, number]> = [];
    for (const literal of literals) {
      for (let at = text.indexOf(literal); at !== -1; at = text.indexOf(literal, at + 1))
        spans.push([at, at + literal.length]);
    }
    for (const pattern of patterns) {
      pattern.lastIndex = 0;
      for (const match of text.matchAll(pattern)) {
        if (match[0].length > 0) spans.push([match.index, match.index + match[0].length]);
      }
    }
    if (spans.length <= 1) return spans;
    spans.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
    const merged: Array<[number, number]> = [spans[0] as [number, number]];
    for (const span of spans.slice(1)) {
      const last = merged[merged.length - 1] as [number, number];
      if (span[0] < last[1]) last[1] = Math.max(last[1], span[1]);
      else merged.push(span);
    }
    return merged;
  };
  const redact = ((text: string): string => {
    const spans = find(text);
    if (spans.length === 0) return text;
    let out = "";
    let from = 0;
    for (const [start, end] of spans) {
      out += text.slice(from, start) + REDACTED;
      from = end;
    }
    return out + text.slice(from);
  }) as Redactor & { find: Redactor["find"]; longestLiteral: number };
  redact.find = find;
  redact.longestLiteral = literals.reduce((max, l) => Math.max(max, l.length), 0);
  return redact;
}

/** Apply a redactor to every string inside a JSON-like value (object keys included), returning a copy. */
export function redactDeep<T>(value: T, redact: Redactor): T {
  if (typeof value === "string") return redact(value) as T;
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, redact)) as T;
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[redact(key)] = redactDeep(item, redact);
    return out as T;
  }
  return value;
}
