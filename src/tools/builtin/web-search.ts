import { defineTool } from "../define-tool.js";
import type { ToolDefinition } from "../tool-definition.js";

/**
 * Web search through a backend the deployment chooses. There is deliberately no default backend: with none
 * configured the tool does not exist, so nothing leaves the machine unless someone asked for it.
 */
export type WebSearchBackend =
  /** A SearXNG instance (self-hosted metasearch) with the JSON output format enabled. */
  | { provider: "searxng"; url: string }
  /** The Brave Search API; the key is read from the named environment variable (default BRAVE_API_KEY). */
  | { provider: "brave"; apiKeyEnv?: string; url?: string };

export interface WebSearchOptions {
  backend: WebSearchBackend;
  /** Default 5, at most 20. */
  maxResults?: number;
  timeoutMs?: number;
  fetch?: typeof fetch;
  env?: Readonly<Record<string, string | undefined>>;
}

export interface WebSearchResult {
  title: string;
  url: string;
  snippet: string;
}

interface SearxngResponse {
  results?: Array<{ title?: string; url?: string; content?: string }>;
}

interface BraveResponse {
  web?: { results?: Array<{ title?: string; url?: string; description?: string }> };
}

function stripTags(text: string): string {
  return text
    .replace(/<[^>]*>/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

/** fetch, with a failure that names the backend's address ("fetch failed" alone says nothing to fix). */
async function fetchBackend(
  doFetch: typeof fetch,
  url: URL,
  init: RequestInit & { signal: AbortSignal },
): Promise<Response> {
  try {
    return await doFetch(url, init);
  } catch (error) {
    if (init.signal.aborted) throw error;
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const why = cause?.code ?? cause?.message ?? (error as Error).message;
    throw new Error(
      `the search backend at ${url.origin}${url.pathname} could not be reached (${why}); check webSearch in the config`,
    );
  }
}

async function searchBackend(
  options: WebSearchOptions,
  query: string,
  count: number,
  signal: AbortSignal,
): Promise<WebSearchResult[]> {
  const doFetch = options.fetch ?? fetch;
  const { backend } = options;
  if (backend.provider === "searxng") {
    const url = new URL("search", backend.url.endsWith("/") ? backend.url : `${backend.url}/`);
    url.searchParams.set("q", query);
    url.searchParams.set("format", "json");
    const response = await fetchBackend(doFetch, url, { signal, headers: { accept: "application/json" } });
    if (!response.ok) throw new Error(`the search backend answered HTTP ${response.status}`);
    const body = (await response.json()) as SearxngResponse;
    return (body.results ?? []).slice(0, count).map((r) => ({
      title: stripTags(r.title ?? ""),
      url: r.url ?? "",
      snippet: stripTags(r.content ?? ""),
    }));
  }
  const envName = backend.apiKeyEnv ?? "BRAVE_API_KEY";
  const key = (options.env ?? process.env)[envName];
  if (!key) throw new Error(`web search is configured for Brave but ${envName} is not set`);
  const url = new URL(backend.url ?? "https://api.search.brave.com/res/v1/web/search");
  url.searchParams.set("q", query);
  url.searchParams.set("count", String(count));
  const response = await fetchBackend(doFetch, url, {
    signal,
    headers: { accept: "application/json", "x-subscription-token": key },
  });
  if (!response.ok) throw new Error(`the search backend answered HTTP ${response.status}`);
  const body = (await response.json()) as BraveResponse;
  return (body.web?.results ?? []).slice(0, count).map((r) => ({
    title: stripTags(r.title ?? ""),
    url: r.url ?? "",
    snippet: stripTags(r.description ?? ""),
  }));
}

export function createWebSearchTool(
  options: WebSearchOptions,
): ToolDefinition<{ query: string; max_results?: number }> {
  const limit = Math.min(options.maxResults ?? 5, 20);
  return defineTool<{ query: string; max_results?: number }>({
    name: "web_search",
    title: "Web search",
    description:
      "Search the web and return the top results (title, URL, snippet). Use for current or public facts.",
    category: "search",
    // Reads from the open world but changes nothing: no approval by default; local-only mode leaves it out.
    annotations: { readOnlyHint: true, openWorldHint: true },
    timeoutMs: options.timeoutMs ?? 15_000,
    inputSchema: {
      type: "object",
      properties: {
        query: { type: "string", minLength: 1, maxLength: 500, description: "What to search for" },
        max_results: {
          type: "integer",
          minimum: 1,
          maximum: 20,
          description: `How many results (default ${limit})`,
        },
      },
      required: ["query"],
      additionalProperties: false,
    },
    handler: async ({ query, max_results }, { signal }) => {
      const results = await searchBackend(options, query, Math.min(max_results ?? limit, 20), signal);
      const text =
        results.length === 0
          ? `No results for "${query}".`
          : results.map((r, i) => `${i + 1}. ${r.title}\n   ${r.url}\n   ${r.snippet}`).join("\n");
      return { content: [{ type: "text", text }], structuredContent: { query, results } };
    },
  });
}
