import type { Llama, LlamaGrammar } from "node-llama-cpp";
import type { ResponseFormat } from "../../core/language-model.js";
import { UnsupportedSettingError } from "../model-errors.js";
import { toGbnfJsonSchema } from "./to-gbnf-json-schema.js";

const GRAMMARS = new WeakMap<Llama, Map<string, Promise<LlamaGrammar>>>();

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The grammar that holds an answer to a JSON `responseFormat`, compiled once per Llama: `json_object` → any JSON
 * object, `json_schema` → the schema in the subset node-llama-cpp's grammar expresses (types, properties, required,
 * enum, const, arrays, string lengths; patterns and numeric bounds are not enforced). `maxStringLength` bounds
 * strings for tiny models, which never close one by themselves. `undefined` for a text format.
 */
export function answerGrammar(
  llama: Llama,
  format: ResponseFormat | undefined,
  maxStringLength: number | undefined,
): Promise<LlamaGrammar> | undefined {
  if (format === undefined || format.type === "text") return undefined;
  const schema = format.type === "json_schema" ? format.schema : { type: "object" };
  if (format.type === "json_schema" && schema.type !== "object" && !isObject(schema.properties))
    throw new UnsupportedSettingError(
      `A local model can hold its answer to a JSON schema whose root is an object (as OpenAI's structured outputs require); "${format.name}" has type ${JSON.stringify(schema.type)}.`,
      "responseFormat",
    );
  const gbnf = toGbnfJsonSchema(schema, maxStringLength === undefined ? {} : { maxStringLength });
  const key = JSON.stringify(gbnf);
  let cache = GRAMMARS.get(llama);
  if (!cache) GRAMMARS.set(llama, (cache = new Map()));
  let grammar = cache.get(key);
  if (!grammar) {
    // The generic parameter infers a literal schema type; this one is only known at run time.
    grammar = llama.createGrammarForJsonSchema(gbnf as never) as Promise<LlamaGrammar>;
    const entries = cache;
    grammar.catch(() => entries.delete(key));
    if (cache.size > 64) cache.clear();
    cache.set(key, grammar);
  }
  return grammar;
}
