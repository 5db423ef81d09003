import type { Tool } from "@modelcontextprotocol/server";
import {
  type BfclFunctionDoc,
  type BfclParameterSchema,
  convertBfclFunctionToTool,
} from "../tools/bfcl-schema.js";
import { type BfclCategory, type BfclLanguage, categoryLanguage } from "./bfcl-dataset.js";

/** The tools one entry offers the model, and how to map the names it calls back to the entry's functions. */
export interface EntryTools {
  tools: Tool[];
  /** Offered name → the entry's function name. */
  originalName: ReadonlyMap<string, string>;
}

const LANGUAGE_HINT: Record<BfclLanguage, string> = {
  python: " Note that the provided function is in Python 3 syntax.",
  java: " Note that the provided function is in Java 8 SDK syntax.",
  javascript: " Note that the provided function is in JavaScript syntax.",
};

/**
 * A function name every backend accepts: OpenAI, Anthropic and most chat templates allow `^[a-zA-Z0-9_-]{1,64}$`, so
 * dots become underscores, as BFCL does for such APIs (no two names of one entry collide that way).
 */
export function offeredFunctionName(name: string): string {
  return name.replace(/\./g, "_");
}

/**
 * Java and JavaScript arguments are source text: BFCL offers every top-level parameter as a string and says in its
 * description which type the text must write (the items or keys of a collection too); scoring reads the text back.
 */
function asSourceTextParameters(doc: BfclFunctionDoc, language: "java" | "javascript"): BfclFunctionDoc {
  const label = language === "java" ? "Java" : "JavaScript";
  const properties: Record<string, BfclParameterSchema> = {};
  for (const [key, original] of Object.entries(doc.parameters.properties ?? {})) {
    let description = original.description ?? "";
    if (original.type === "any") {
      description += ` This parameter can be of any type of ${label} object in string representation.`;
    } else {
      description += ` This is ${label} ${original.type} type parameter in string representation.`;
    }
    if (["ArrayList", "Array", "array"].includes(original.type ?? "") && original.items?.type !== undefined) {
      description += ` The list elements are of type ${original.items.type}; they are not in string representation.`;
    }
    if (language === "javascript" && original.type === "dict" && original.properties !== undefined) {
      description += ` The dictionary entries have the following schema; they are not in string representation. ${JSON.stringify(original.properties)}`;
    }
    properties[key] = { type: "string", description };
  }
  return { ...doc, parameters: { ...doc.parameters, properties } };
}

/**
 * The entry's functions as MCP tools, the way BFCL presents them to a model: JSON Schema converted from its type
 * dialect, a note on the function's language added to each description, Java/JavaScript parameters as source text,
 * names every API accepts.
 */
export function entryTools(functions: readonly BfclFunctionDoc[], category: BfclCategory): EntryTools {
  // Kept per entry: the tool objects are what schema validators are compiled (and cached) for, and a sweep asks
  // every entry once per format.
  const cached = converted.get(functions);
  if (cached) return cached;
  const made = convert(functions, category);
  converted.set(functions, made);
  return made;
}

const converted = new WeakMap<readonly BfclFunctionDoc[], EntryTools>();

function convert(functions: readonly BfclFunctionDoc[], category: BfclCategory): EntryTools {
  const language = categoryLanguage(category);
  const originalName = new Map<string, string>();
  const tools = functions.map((doc) => {
    const presented = language === "python" ? doc : asSourceTextParameters(doc, language);
    const name = offeredFunctionName(doc.name);
    originalName.set(name, doc.name);
    const tool = convertBfclFunctionToTool({
      ...presented,
      name,
      description: `${doc.description ?? ""}${LANGUAGE_HINT[language]}`,
    });
    return tool;
  });
  return { tools, originalName };
}
