/**
 * Models for testing `toolbridge eval` against BFCL's own possible answers:
 * - `createOracleModel(cases)` answers each entry with the calls its possible answer describes (Java and JavaScript
 *   arguments written as source text, as a model must), so a correct checker scores it 100% except where
 *   data/bfcl/known_issues.json says the answer itself is inconsistent;
 * - `createProseModel()` never calls anything.
 * Both are `LanguageModel`s streaming the events a real backend streams, so they go through the evaluator's whole path.
 */
import type { Tool } from "@modelcontextprotocol/server";
import type { LanguageModel, ModelEvent, ModelRequest } from "../../src/core/language-model.js";
import { type BfclCase, categoryKind, categoryLanguage } from "../../src/eval/bfcl-dataset.js";
import { entryTools, offeredFunctionName } from "../../src/eval/entry-tools.js";
import type { BfclParameterSchema } from "../../src/tools/bfcl-schema.js";

export interface OracleCall {
  name: string;
  arguments: Record<string, unknown>;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A dict candidate `{k: [v, …]}` → `{k: v}`: each key's first value, keys that may be omitted left out. */
function flatDict(candidate: unknown): unknown {
  if (!isObject(candidate)) return candidate;
  const out: Record<string, unknown> = {};
  for (const [key, options] of Object.entries(candidate)) {
    const list = Array.isArray(options) ? options : [options];
    if (list.includes("")) continue;
    if (list.length > 0) out[key] = list[0];
  }
  return out;
}

function plain(value: unknown, schema: BfclParameterSchema | undefined): unknown {
  const type = schema?.type ?? "";
  if (["dict", "HashMap"].includes(type)) return flatDict(value);
  if (Array.isArray(value) && ["dict", "HashMap"].includes(schema?.items?.type ?? ""))
    return value.map(flatDict);
  return value;
}

function javaElement(value: unknown, type: string | undefined): string {
  if (typeof value === "string") return type === "char" ? `'${value}'` : `"${value}"`;
  return javaSource(value, { type: type ?? "any" });
}

function javaSource(value: unknown, schema: BfclParameterSchema): string {
  const type = schema.type ?? "any";
  // A string answer for a non-string type is a variable reference: written as is.
  if (typeof value === "string") return value;
  switch (type) {
    case "long":
      return `${value}L`;
    case "float":
      return `${value}f`;
    case "Array": {
      const items = (value as unknown[]).map((v) => javaElement(v, schema.items?.type));
      return `new ${schema.items?.type ?? "Object"}[]{${items.join(", ")}}`;
    }
    case "ArrayList": {
      const items = (value as unknown[]).map((v) => javaElement(v, schema.items?.type));
      return items.length ? `new ArrayList<>(Arrays.asList(${items.join(", ")}))` : "new ArrayList<>()";
    }
    case "HashMap": {
      const puts = Object.entries(value as Record<string, unknown>).map(
        ([k, v]) => `put("${k}", ${javaElement(v, undefined)});`,
      );
      return `new HashMap<String, Object>() {{ ${puts.join(" ")} }}`;
    }
    default:
      return typeof value === "object" ? JSON.stringify(value) : String(value);
  }
}

function javascriptElement(value: unknown): string {
  if (typeof value === "string") return `"${value}"`;
  if (Array.isArray(value)) return `[${value.map(javascriptElement).join(", ")}]`;
  if (isObject(value))
    return `{${Object.entries(value)
      .map(([k, v]) => `${k}: ${javascriptElement(v)}`)
      .join(", ")}}`;
  return String(value);
}

function javascriptSource(value: unknown, schema: BfclParameterSchema): string {
  const type = schema.type ?? "any";
  if (typeof value === "string") return type === "String" ? `"${value}"` : value;
  if (type === "Bigint") return `${value}n`;
  return javascriptElement(value);
}

const EMPTY: Record<string, unknown> = { array: [], tuple: [], dict: {}, string: "" };
const TEXT_TYPES = new Set(["String", "char", "any"]);

/**
 * The answer to give for a parameter: its first candidate other than "may be omitted" — a string one for a Java or
 * JavaScript text parameter, written as is — or, for a required parameter the answer only marks as omittable, the
 * empty value of its type.
 */
function chooseCandidate(
  candidates: readonly unknown[],
  schema: BfclParameterSchema | undefined,
  language: string,
): unknown {
  const given = candidates.filter((c) => c !== "");
  if (given.length === 0) return EMPTY[schema?.type ?? "string"] ?? "";
  if (language !== "python" && TEXT_TYPES.has(schema?.type ?? "")) {
    const text = given.find((c) => typeof c === "string");
    if (text !== undefined) return text;
  }
  return given[0];
}

/** The calls an entry's possible answer describes, by the entry's function names, arguments as the model writes them. */
export function oracleCalls(bfclCase: BfclCase): OracleCall[] {
  const { entry, answer, category } = bfclCase;
  if (categoryKind(category) === "relevance") {
    const first = entry.function[0];
    return first ? [{ name: first.name, arguments: {} }] : [];
  }
  if (!answer) return [];
  const language = categoryLanguage(category);
  return answer.ground_truth.map((expected) => {
    const name = Object.keys(expected)[0]!;
    const doc = entry.function.find((fn) => fn.name === name);
    const required = new Set(doc?.parameters.required ?? []);
    const args: Record<string, unknown> = {};
    for (const [param, candidates] of Object.entries(expected[name]!)) {
      if (candidates.includes("") && !required.has(param)) continue;
      const schema = doc?.parameters.properties?.[param];
      const chosen = chooseCandidate(candidates, schema, language);
      const value = plain(chosen, schema);
      args[param] =
        language === "java"
          ? javaSource(value, schema ?? {})
          : language === "javascript"
            ? javascriptSource(value, schema ?? {})
            : value;
    }
    return { name, arguments: args };
  });
}

/** The text the model was asked and the tools it was offered (schemas included): which entry this is. */
function requestKey(messages: ModelRequest["messages"], tools: readonly Tool[]): string {
  const text = messages.map((m) => ("content" in m ? m.content : "")).join("\n");
  return `${text}\u0000${JSON.stringify(tools)}`;
}

function* callEvents(calls: readonly OracleCall[]): Generator<ModelEvent> {
  for (const [i, call] of calls.entries()) {
    const name = offeredFunctionName(call.name);
    yield { type: "call-start", id: `oracle_${i}`, name };
    yield { type: "call-end", id: `oracle_${i}`, name, arguments: call.arguments };
  }
  yield { type: "finish", reason: calls.length ? "tool-calls" : "stop" };
}

/**
 * A model that answers every entry of `cases` with its possible answer. `rewrite` changes the calls first (to make a
 * deliberately wrong model). The entry is recognised by its messages and its tools' names.
 */
export function createOracleModel(
  cases: readonly BfclCase[],
  rewrite: (calls: OracleCall[], bfclCase: BfclCase) => OracleCall[] = (calls) => calls,
): LanguageModel {
  const byRequest = new Map<string, BfclCase>();
  for (const bfclCase of cases) {
    const messages = bfclCase.entry.question
      .flat()
      .map((m) => ({ role: "user" as const, content: m.content }));
    const { tools } = entryTools(bfclCase.entry.function, bfclCase.category);
    const key = requestKey(messages, tools);
    // BFCL asks a few live requests twice, once expecting a call and once (in live_irrelevance) none; an answer
    // can be right for one of the two only (known_issues.json lists them). The oracle answers with the call.
    const other = byRequest.get(key);
    if (other && categoryKind(bfclCase.category) === "irrelevance") continue;
    byRequest.set(key, bfclCase);
  }
  return {
    id: "oracle",
    async *stream(request) {
      const bfclCase = byRequest.get(requestKey(request.messages, request.tools));
      if (!bfclCase) throw new Error("the oracle was asked something that is not one of its entries");
      if (categoryKind(bfclCase.category) === "irrelevance") {
        yield { type: "text-delta", text: "None of these functions can do that." };
        yield { type: "finish", reason: "stop" };
        return;
      }
      yield* callEvents(rewrite(oracleCalls(bfclCase), bfclCase));
    },
  };
}

/** A model that always answers in prose. */
export function createProseModel(): LanguageModel {
  return {
    id: "prose",
    async *stream() {
      yield { type: "text-delta", text: "I would rather explain it in words." };
      yield { type: "finish", reason: "stop" };
    },
  };
}
