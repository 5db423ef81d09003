import type { Tool } from "@modelcontextprotocol/server";
import { createNameFilter } from "./name-filter.js";
import type { ToolIndex } from "./tool-index.js";

/**
 * Tool preselection for large catalogues: offer the model, each turn, the `maxTools` tools that fit the conversation
 * best (plus the `always` ones and those already called), instead of every tool — small models lose their way in
 * long catalogues, and MCP users report most of the context going to tool definitions.
 */
export interface ToolSelection {
  /** How many tools retrieval picks per turn (the `always` and already-called tools come on top). */
  maxTools: number;
  /** Tools offered whatever the conversation says: names or `*` patterns, as allow lists take them. */
  always?: readonly string[];
}

/** Weight of each earlier request relative to the one after it: the latest request decides most. */
const EARLIER_REQUEST_WEIGHT = 0.5;
/** Requests further back weigh less than 1/128 of the latest: not searched. */
const REQUESTS_SEARCHED = 8;

/**
 * The tools to offer for a conversation: ranked by the latest request, earlier requests counting half as much each
 * step back; the best `maxTools` of them, with the `always` tools, the tools already called in the run, and `keep`
 * (a tool the caller forces), in the catalogue's own order. A catalogue no longer than `maxTools` is offered whole.
 */
export function selectTools(input: {
  tools: readonly Tool[];
  index: ToolIndex;
  /** What the user asked, oldest first. */
  requests: readonly string[];
  selection: ToolSelection;
  /** Tools called in this run so far. */
  called?: Iterable<string>;
  keep?: Iterable<string>;
}): Tool[] {
  const { tools, index, requests, selection } = input;
  if (tools.length <= selection.maxTools) return [...tools];
  const chosen = new Set<string>([...(input.called ?? []), ...(input.keep ?? [])]);
  if (selection.always?.length) {
    const always = createNameFilter({ allow: selection.always });
    for (const tool of tools) if (always(tool.name)) chosen.add(tool.name);
  }
  const scores = new Map<string, number>();
  let weight = 1;
  for (let i = requests.length - 1; i >= Math.max(0, requests.length - REQUESTS_SEARCHED); i--) {
    for (const match of index.search(requests[i]!))
      scores.set(match.name, (scores.get(match.name) ?? 0) + weight * match.score);
    weight *= EARLIER_REQUEST_WEIGHT;
  }
  const ranked = [...scores.entries()].sort((a, b) => b[1] - a[1]);
  let picked = 0;
  for (const [name] of ranked) {
    if (picked >= selection.maxTools) break;
    if (chosen.has(name)) continue;
    chosen.add(name);
    picked++;
  }
  return tools.filter((tool) => chosen.has(tool.name));
}
