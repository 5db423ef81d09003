/**
 * Allow/deny lists for tool names. Entries are exact names or patterns with `*` (any run of characters), so a
 * deployment can write `fs.*` or `*.delete_file` for a whole mounted server or one operation everywhere.
 */
export interface NameFilterConfig {
  /** When given, only matching tools are visible. */
  allow?: readonly string[];
  /** Matching tools are never visible; deny wins over allow. */
  deny?: readonly string[];
}

function toMatcher(pattern: string): (name: string) => boolean {
  if (!pattern.includes("*")) return (name) => name === pattern;
  const source = pattern
    .split("*")
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  const regex = new RegExp(`^${source}$`);
  return (name) => regex.test(name);
}

export function createNameFilter(config: NameFilterConfig = {}): (name: string) => boolean {
  const allow = config.allow?.map(toMatcher);
  const deny = (config.deny ?? []).map(toMatcher);
  return (name) => {
    if (deny.some((matches) => matches(name))) return false;
    return allow === undefined || allow.some((matches) => matches(name));
  };
}
