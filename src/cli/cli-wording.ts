/**
 * The library's errors name its own options (`chatTemplate`, `apiKey`, `mode: "text"`), which is right for a library
 * user and wrong at a terminal. The CLI prints every message through this table, so it names the flags, environment
 * variables and config keys a CLI user actually has. (Each replacement matches one message of the models room;
 * model-options.ts has the table of setting names.)
 */
const REPLACEMENTS: ReadonlyArray<readonly [RegExp, string]> = [
  [
    /try mode "text" or another tool-call protocol/g,
    "try --no-native-tools (a text tool-call protocol) or another --protocol",
  ],
  [
    /pass chatTemplate \{ tokenizerConfig: "<dir>\/tokenizer_config\.json" \}, \{ gguf: "<file\.gguf>" \} or \{ builtin: ([^}]*) \}/g,
    "pass --chat-template <dir>/tokenizer_config.json, --chat-template <file.gguf> or a built-in name ($1) (TOOLBRIDGE_CHAT_TEMPLATE, or chatTemplate in the config's model section)",
  ],
  [
    /or pass the model's tokenizer_config\.json or GGUF\./g,
    "or pass the model's tokenizer_config.json or GGUF to --chat-template.",
  ],
  [
    /set ANTHROPIC_API_KEY or pass apiKey/g,
    "set ANTHROPIC_API_KEY (or name another variable with apiKeyEnv in the config's model section)",
  ],
  [
    /Set OPENAI_API_KEY \(or apiKey\)/g,
    "Set OPENAI_API_KEY (or the variable named by apiKeyEnv in the config's model section)",
  ],
  [
    /its token limit \(maxTokens\)/g,
    "its token limit (--max-tokens, TOOLBRIDGE_MAX_TOKENS or maxTokens in the config's model section)",
  ],
  // A wrapped message that already ended with a period ("…got "root".. Is it…").
  [/(?<=[^\s.])\.\.(?=\s|$)/g, "."],
];

/** `message` in the CLI's own terms. */
export function inCliTerms(message: string): string {
  let text = message;
  for (const [pattern, replacement] of REPLACEMENTS) text = text.replace(pattern, replacement);
  return text;
}
