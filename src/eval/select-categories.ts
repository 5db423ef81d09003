import { BFCL_CATEGORIES, type BfclCategory, LIVE_CATEGORIES, NON_LIVE_CATEGORIES } from "./bfcl-dataset.js";
import { EvalInputError } from "./eval-errors.js";

/** BFCL's collection names (its CLI's), and the short names of the single categories. */
const COLLECTIONS: Readonly<Record<string, readonly BfclCategory[]>> = {
  all: BFCL_CATEGORIES,
  single_turn: BFCL_CATEGORIES,
  live: LIVE_CATEGORIES,
  non_live: NON_LIVE_CATEGORIES,
  python: BFCL_CATEGORIES.filter((c) => c !== "simple_java" && c !== "simple_javascript"),
  non_python: ["simple_java", "simple_javascript"],
  simple: ["simple_python"],
  java: ["simple_java"],
  javascript: ["simple_javascript"],
};

/**
 * `--category`: a comma-separated list of category names (`simple_python`, `live_multiple`, …), BFCL's collections
 * (`all`, `live`, `non_live`, `python`, `non_python`), the short names `simple`, `java`, `javascript`, or `*` patterns
 * (`live_*`). The result keeps BFCL's category order, each category once.
 */
export function parseCategories(text: string): BfclCategory[] {
  const wanted = new Set<BfclCategory>();
  for (const raw of text.split(",")) {
    const name = raw.trim();
    if (name === "") continue;
    if (Object.hasOwn(COLLECTIONS, name)) {
      for (const category of COLLECTIONS[name]!) wanted.add(category);
      continue;
    }
    if ((BFCL_CATEGORIES as readonly string[]).includes(name)) {
      wanted.add(name as BfclCategory);
      continue;
    }
    if (name.includes("*")) {
      const pattern = new RegExp(`^${name.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*")}$`);
      const matched = BFCL_CATEGORIES.filter((category) => pattern.test(category));
      if (matched.length > 0) {
        for (const category of matched) wanted.add(category);
        continue;
      }
    }
    throw new EvalInputError(
      `Unknown BFCL category "${name}". Use ${BFCL_CATEGORIES.join(", ")}, a collection (${Object.keys(COLLECTIONS).join(", ")}) or a pattern such as live_*.`,
    );
  }
  if (wanted.size === 0) throw new EvalInputError("--category names no category.");
  return BFCL_CATEGORIES.filter((category) => wanted.has(category));
}
