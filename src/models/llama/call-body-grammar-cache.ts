import type { Tool } from "@modelcontextprotocol/server";
import type { Llama, LlamaGrammar } from "node-llama-cpp";
import type { ToolCallProtocol } from "../../protocols/protocol.js";
import { type CallFrame, callFrames, createCallBodyGrammar } from "./call-body-grammar.js";

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

/**
 * The grammar of a call's body for these tools (only the named one's, with `named`), compiled once and shared by
 * every model instance on this Llama: it depends only on the protocol, the frames, the schemas and the string bound.
 */
export function cachedCallBodyGrammar(input: {
  llama: Llama;
  protocol: ToolCallProtocol;
  frames: readonly CallFrame[];
  tools: readonly Tool[];
  maxStringLength: number | undefined;
  named: string | undefined;
}): Promise<LlamaGrammar> {
  const { llama, maxStringLength, named } = input;
  const key = JSON.stringify([
    input.protocol.id,
    named ?? null,
    maxStringLength ?? null,
    input.tools.map((t) => [t.name, t.inputSchema]),
  ]);
  let cache = GRAMMARS.get(llama);
  if (!cache) GRAMMARS.set(llama, (cache = new Map()));
  let grammar = cache.get(key);
  if (!grammar) {
    grammar = createCallBodyGrammar(llama, input.frames, input.tools, {
      ...(maxStringLength !== undefined ? { maxStringLength } : {}),
      ...(named !== undefined ? { named } : {}),
    });
    const entries = cache;
    grammar.catch(() => entries.delete(key));
    if (cache.size > 64) cache.clear();
    cache.set(key, grammar);
  }
  return grammar;
}
