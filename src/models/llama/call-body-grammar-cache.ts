import type { Tool } from "@modelcontextprotocol/server";
import type { Llama, LlamaGrammar } from "node-llama-cpp";
import type { ToolCallProtocol } from "../../protocols/protocol.js";
import {
  type CallFrame,
  callBodyGbnf,
  callBodyTools,
  callFrames,
  createCallBodyGrammar,
  withCopiedStrings,
} from "./call-body-grammar.js";
import type { CopySources } from "./copy-grammar.js";

/** A protocol's call frames for one tool list: where a call starts (`marker`) and what wraps each tool's body. */
export type ToolFrames = { marker: string; frames: CallFrame[] } | undefined;

/** Call frames per tool list, for one model's protocol (a run offers the same tools turn after turn). */
export class CallFrameCache {
  readonly #entries = new Map<string, ToolFrames>();

  constructor(private readonly protocol: ToolCallProtocol) {}

  framesFor(tools: readonly Tool[]): ToolFrames {
    const key = JSON.stringify(tools.map((t) => [t.name, t.inputSchema]));
    if (this.#entries.has(key)) return this.#entries.get(key);
    const frames = tools.length ? callFrames(this.protocol, tools) : undefined;
    if (this.#entries.size > 32) this.#entries.clear();
    this.#entries.set(key, frames);
    return frames;
  }
}

const GRAMMARS = new WeakMap<Llama, Map<string, Promise<LlamaGrammar>>>();
const COPY_GBNF = new WeakMap<Llama, Map<string, Promise<string>>>();

function cached<T>(
  caches: WeakMap<Llama, Map<string, Promise<T>>>,
  llama: Llama,
  key: string,
  size: number,
  make: () => Promise<T>,
): Promise<T> {
  let cache = caches.get(llama);
  if (!cache) caches.set(llama, (cache = new Map()));
  let value = cache.get(key);
  if (!value) {
    value = make();
    const entries = cache;
    value.catch(() => entries.delete(key));
    if (cache.size > size) cache.clear();
    cache.set(key, value);
  }
  return value;
}

/**
 * The grammar of a call's body for these tools (only the named one's, with `named`), compiled once and shared by
 * every model instance on this Llama: it depends only on the protocol, the frames, the schemas and the string bound.
 * With `copy` (the words of this request's conversation) plain strings are copy-constrained: the schema part is made
 * once and the grammar compiled per request, for the sources change with every request (and the same sources, asked
 * again within a turn, reuse it).
 */
export function cachedCallBodyGrammar(input: {
  llama: Llama;
  protocol: ToolCallProtocol;
  frames: readonly CallFrame[];
  tools: readonly Tool[];
  maxStringLength: number | undefined;
  named: string | undefined;
  copy?: CopySources | undefined;
}): Promise<LlamaGrammar> {
  const { llama, maxStringLength, named, copy } = input;
  const key = JSON.stringify([
    input.protocol.id,
    named ?? null,
    maxStringLength ?? null,
    input.tools.map((t) => [t.name, t.inputSchema]),
  ]);
  const options = {
    ...(maxStringLength !== undefined ? { maxStringLength } : {}),
    ...(named !== undefined ? { named } : {}),
  };
  if (!copy)
    return cached(GRAMMARS, llama, key, 64, () =>
      createCallBodyGrammar(llama, input.frames, input.tools, options),
    );
  // The zones a request names narrow its zone arguments: the schema part is made once per set of them.
  const gbnf = cached(COPY_GBNF, llama, JSON.stringify([key, copy.zones ?? null]), 64, () =>
    callBodyGbnf(llama, input.frames, input.tools, { ...options, copyStrings: true, zones: copy.zones }),
  );
  return cached(GRAMMARS, llama, JSON.stringify([key, copy]), 64, async () =>
    llama.createGrammar({
      grammar: withCopiedStrings(await gbnf, copy, maxStringLength, callBodyTools(input.frames, named)),
    }),
  );
}
