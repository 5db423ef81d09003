import type { EngineContext, Region, StartRule } from "../core/stream-engine.js";
import { TaggedCallRegion, type TaggedCallSyntax } from "../core/tagged-call-region.js";

/**
 * Start rules for an XML-ish call section (`<tool_call>…`, `<minimax:tool_call>…`): the section tag, bare or
 * inside a code fence. `jsonFallback` reads a section whose body turns out to be JSON (the bare tag only).
 */
export function taggedSectionRules(
  syntax: TaggedCallSyntax,
  jsonFallback?: (ctx: EngineContext, opener: string) => Region,
): StartRule[] {
  const tag = syntax.sectionOpen;
  return [
    {
      first: tag[0]!,
      pattern: [tag],
      open: (ctx, m) =>
        new TaggedCallRegion(ctx, syntax, { opener: m.text, ...(jsonFallback ? { jsonFallback } : {}) }),
    },
    {
      first: "`",
      pattern: ["```", { letters: true }, { ws: true }, tag],
      open: (ctx, m) => new TaggedCallRegion(ctx, syntax, { opener: m.text, fenced: true }),
    },
  ];
}
