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

export type Redactor = (text: string) => string;

/** Build a redactor once (collecting env values is not free) and reuse it for every result. */
export function createRedactor(options: RedactorOptions = {}): Redactor {
  const env = options.env ?? process.env;
  const named = new Set(options.envVars ?? []);
  const values = new Set<string>(options.values ?? []);
  for (const [name, value] of Object.entries(env)) {
    // Short values ("1", "true") would redact ordinary text all over the place.
    if (value && value.length >= 8 && (named.has(name) || SECRET_ENV_NAME.test(name))) values.add(value);
  }
  // Longest first, so a secret that contains another secret is replaced whole.
  const literals = [...values].filter((v) => v.length > 0).sort((a, b) => b.length - a.length);
  const patterns = [
    ...(options.noDefaultPatterns ? [] : DEFAULT_SECRET_PATTERNS),
    ...(options.patterns ?? []),
  ];
  return (text) => {
    let out = text;
    for (const literal of literals) if (out.includes(literal)) out = out.split(literal).join(REDACTED);
    for (const pattern of patterns) {
      pattern.lastIndex = 0;
      out = out.replace(pattern, REDACTED);
    }
    return out;
  };
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
