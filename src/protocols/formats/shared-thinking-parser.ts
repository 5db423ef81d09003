import { dropRule, reasoningPrefix, reasoningRule } from "../core/reasoning-region.js";
import { type StartRule, StreamParser } from "../core/stream-engine.js";
import type { ParserOptions } from "../types.js";

/**
 * A stream parser for a format whose reasoning is `<think>…</think>`: the format's `rules` after the
 * reasoning rule and a stray-`</think>` drop, starting inside reasoning when the prompt ended with `<think>`.
 * Every format without a reasoning channel of its own is built this way.
 */
export function createThinkingParser(
  rules: readonly StartRule[],
  opts?: ParserOptions,
  extras: {
    /** Markers that end unclosed reasoning where the format's reference parser does (see `ReasoningRegion`). */
    reasoningEndsAt?: readonly string[];
    /** The format's closing markup, dropped when it strays after a call (`StreamParserSpec.strayClosers`). */
    strayClosers?: readonly string[];
  } = {},
): StreamParser {
  const reasoningEndsAt = extras.reasoningEndsAt ?? [];
  return new StreamParser(
    {
      rules: [reasoningRule("<think>", "</think>", reasoningEndsAt), dropRule("</think>"), ...rules],
      initialRegion: reasoningPrefix("<think>", "</think>", reasoningEndsAt),
      ...(extras.strayClosers ? { strayClosers: extras.strayClosers } : {}),
    },
    opts,
  );
}
