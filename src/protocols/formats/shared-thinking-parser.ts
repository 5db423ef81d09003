import { dropRule, reasoningPrefix, reasoningRule } from "../core/reasoning-region.js";
import { type StartRule, StreamParser } from "../core/stream-engine.js";
import type { ParserOptions } from "../types.js";

/**
 * A stream parser for a format whose reasoning is `<think>…</think>`: the format's `rules` after the
 * reasoning rule and a stray-`</think>` drop, starting inside reasoning when the prompt ended with `<think>`.
 * Every format without a reasoning channel of its own is built this way.
 */
export function createThinkingParser(rules: readonly StartRule[], opts?: ParserOptions): StreamParser {
  return new StreamParser(
    { rules: [reasoningRule(), dropRule("</think>"), ...rules], initialRegion: reasoningPrefix() },
    opts,
  );
}
