import { pythonFloat, pythonInt, stripChars } from "./python-semantics.js";

/**
 * A JavaScript argument as BFCL's checker reads it: the model sends source text (`"text"`, `42`, `[1, 2]`,
 * `{key: 'v'}`, `123n`), turned into a value by the parameter's type. Pattern-based exactly as BFCL's reading, so
 * scores compare with the leaderboard's: text that does not fit stays text, `float` takes no exponent, elements are
 * split at every comma and objects end at the first `}`.
 */
export function javascriptSourceValue(text: string, type: string, itemType?: string): unknown {
  switch (type) {
    case "String":
      return (text.startsWith('"') && text.endsWith('"')) || (text.startsWith("'") && text.endsWith("'"))
        ? text.slice(1, -1)
        : text;
    case "integer":
      return /^-?\d+$/.test(text) ? Number(text) : text;
    case "float":
      return /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text;
    case "Bigint":
      return /^-?\d+n$/.test(text) ? Number(text.slice(0, -1)) : text;
    case "Boolean":
      return text === "true" ? true : text === "false" ? false : text;
    case "dict":
      return javascriptObject(text.trim());
    case "array":
      return javascriptArray(text.trim(), itemType);
    default:
      return text;
  }
}

/** The JavaScript types BFCL converts, and the Python type the result has. */
export const JAVASCRIPT_PYTHON_TYPES: Readonly<
  Record<string, "int" | "float" | "bool" | "str" | "list" | "dict">
> = {
  String: "str",
  integer: "int",
  float: "float",
  Bigint: "int",
  Boolean: "bool",
  dict: "dict",
  array: "list",
  any: "str",
};

function javascriptArray(code: string, itemType: string | undefined): unknown {
  const twoDimensional =
    /^(?:\[\s*\[.*?\]\s*(,\s*\[.*?\]\s*)*\]|\bnew\s+Array\(\s*\[.*?\]\s*(,\s*\[.*?\]\s*)*\))/.exec(code);
  if (twoDimensional) {
    return [...twoDimensional[0].matchAll(/\[(.*?)\]/g)].map((match, index) => {
      let inner = match[1]!.trim();
      if (index === 0 && inner.startsWith("[")) inner = inner.slice(1);
      return inner.split(",").map((item) => javascriptLiteral(item.trim()));
    });
  }
  const oneDimensional = /^(?:\[(.*?)\]|\bnew\s+Array\((.*?)\))/.exec(code);
  if (!oneDimensional) return code;
  const body = (oneDimensional[1] ?? oneDimensional[2] ?? "").trim();
  const items = body === "" ? [] : body.split(",");
  if (itemType === undefined) return items.map((item) => javascriptLiteral(item.trim()));
  // An item type BFCL does not know makes its reading fail, and the whole text is kept.
  if (!(itemType in JAVASCRIPT_PYTHON_TYPES)) return code;
  return items.map((item) => javascriptSourceValue(item.trim(), itemType));
}

function javascriptObject(code: string): unknown {
  if (code === "{}") return {};
  const match = /^\{(.*?)\}/.exec(code);
  if (!match) return code;
  const object: Record<string, unknown> = {};
  for (const pair of match[1]!.matchAll(/([^:]+):\s*(.*?)(?:,\s*(?=[^,]+:)|$)/g)) {
    const key = stripChars(pair[1]!.trim(), "'\"");
    const value = pair[2]!.trim();
    if (value.startsWith("[") && value.endsWith("]")) object[key] = javascriptArray(value, undefined);
    else if (value.startsWith("{") && value.endsWith("}")) object[key] = javascriptObject(value);
    else object[key] = javascriptLiteral(stripChars(value, "'\""));
  }
  return object;
}

/** A JavaScript literal whose type is not given: boolean, quoted string, a number, else the text. */
export function javascriptLiteral(text: string): unknown {
  const value = text.trim();
  if (value === "true") return true;
  if (value === "false") return false;
  if ((value.startsWith('"') && value.endsWith('"')) || (value.startsWith("'") && value.endsWith("'")))
    return value.slice(1, -1);
  return pythonInt(value) ?? pythonFloat(value) ?? value;
}
