import { pythonFloat, pythonInt } from "./python-semantics.js";

/**
 * A Java argument as BFCL's checker reads it: the model sends Java source text (`42L`, `1.5f`,
 * `new ArrayList<>(Arrays.asList(1, 2))`, `new HashMap<String, Object>() {{ put("k", v); }}`), which is turned into a
 * value by the parameter's Java type. The reading is pattern-based, exactly as BFCL's (so scores compare with the
 * leaderboard's), with its quirks: text that does not fit the type's pattern stays text (and then matches only a
 * variable-reference answer), `long` needs its `L` and `float` its `f`, an `Array` of `String` keeps each element's
 * quotes, and commas inside elements split them.
 */
export function javaSourceValue(text: string, type: string, itemType?: string): unknown {
  switch (type) {
    case "byte":
    case "short":
    case "integer":
      return /^-?\d+$/.test(text) ? Number(text) : text;
    case "float":
      return /^-?\d+(\.\d+)?([eE][+-]?\d+)?[fF]$/.test(text) ? Number(text.slice(0, -1)) : text;
    case "double":
      return /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(text) ? Number(text) : text;
    case "long":
      return /^-?\d+[lL]$/.test(text) ? Number(text.slice(0, -1)) : text;
    case "boolean":
      return text === "true" ? true : text === "false" ? false : text;
    case "ArrayList":
      return javaArrayList(text, itemType);
    case "Array":
      return javaArray(text, itemType);
    case "HashMap":
      return javaHashMap(text);
    default:
      // String, char, any — and the collection types BFCL does not convert — are the text itself.
      return text;
  }
}

/** The Java types BFCL converts, and the Python type the result has. */
export const JAVA_PYTHON_TYPES: Readonly<Record<string, "int" | "float" | "bool" | "str" | "list" | "dict">> =
  {
    byte: "int",
    short: "int",
    integer: "int",
    long: "int",
    float: "float",
    double: "float",
    boolean: "bool",
    char: "str",
    String: "str",
    any: "str",
    Array: "list",
    ArrayList: "list",
    Queue: "list",
    Stack: "list",
    HashMap: "dict",
    Hashtable: "dict",
  };

function element(text: string, itemType: string | undefined): unknown {
  return itemType !== undefined && itemType in JAVA_PYTHON_TYPES
    ? javaSourceValue(text, itemType)
    : javaLiteral(text);
}

function javaArrayList(text: string, itemType: string | undefined): unknown {
  const unquote = itemType === "char" || itemType === "String";
  const read = (item: string) => (unquote ? item.slice(1, -1) : element(item, itemType));
  const asList = /new\s+ArrayList<\w*>\(Arrays\.asList\((.+?)\)\)/.exec(text);
  if (asList) return asList[1]!.split(",").map((item) => read(item.trim()));
  const adds = /new\s+ArrayList<\w*>\(\)\s*\{\{\s*(.+?)\s*\}\}/s.exec(text);
  if (adds) return [...adds[1]!.matchAll(/add\((.+?)\)/g)].map((m) => read(m[1]!.trim()));
  if (/new\s+ArrayList<\w*>\(\)/.test(text)) return [];
  return text;
}

function javaArray(text: string, itemType: string | undefined): unknown {
  const match = /new\s+\w+\[\]\s*\{(.*?)\}/.exec(text);
  if (!match) return text;
  return match[1]!
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "")
    .map((item) => element(item, itemType));
}

function javaHashMap(text: string): unknown {
  const match = /new\s+HashMap<.*?>\s*\(\)\s*\{\s*\{?\s*(.*?)\s*\}?\s*\}/s.exec(text);
  if (match) {
    const map: Record<string, unknown> = {};
    for (const put of match[1]!.matchAll(/put\("(.*?)",\s*(.*?)\)/g))
      map[put[1]!] = javaLiteral(put[2]!.trim());
    return map;
  }
  if (/new\s+HashMap<.*?>\s*\(\)/.test(text)) return {};
  return text;
}

/** A Java literal whose type is not given: boolean, quoted string, `1L`, `1.5f`, a number, else the text. */
export function javaLiteral(text: string): unknown {
  if (text === "true") return true;
  if (text === "false") return false;
  if (text.startsWith('"') && text.endsWith('"')) return text.slice(1, -1);
  if (/^-?\d+[lL]$/.test(text)) return Number(text.slice(0, -1));
  if (/^-?\d+(\.\d+)?([eE][+-]?\d+)?[fF]$/.test(text)) return Number(text.slice(0, -1));
  return pythonInt(text) ?? pythonFloat(text) ?? text;
}
