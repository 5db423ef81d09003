import type { Tool } from "@modelcontextprotocol/server";
import { DuplicateToolError, InvalidCursorError } from "./errors.js";
import { createNameFilter, type NameFilterConfig } from "./name-filter.js";
import type { AnyToolDefinition } from "./tool-definition.js";
import { assertValidToolName } from "./tool-name.js";

export type RegistryChange =
  | { type: "registered"; name: string }
  | { type: "unregistered"; name: string }
  | { type: "filter-changed" };

export interface ToolRegistryOptions extends NameFilterConfig {
  /** Tools per page of `list()`; MCP clients follow `nextCursor`. Default 100. */
  pageSize?: number;
}

export interface ListToolsOptions {
  cursor?: string;
  category?: string;
  /** Overrides the registry's page size for this call. */
  pageSize?: number;
  /** Also list tools switched off with `setEnabled` (a management view; never what a model or MCP client sees). */
  includeDisabled?: boolean;
}

export interface ToolPage {
  tools: Tool[];
  nextCursor?: string;
}

const CURSOR_PREFIX = "tb1:";

/** The cursor names the last tool of the previous page, so pages stay consistent while tools come and go. */
function encodeCursor(lastName: string): string {
  return CURSOR_PREFIX + Buffer.from(lastName, "utf8").toString("base64url");
}

function decodeCursor(cursor: string): string {
  if (!cursor.startsWith(CURSOR_PREFIX)) throw new InvalidCursorError(cursor);
  const body = cursor.slice(CURSOR_PREFIX.length);
  if (!/^[A-Za-z0-9_-]+$/.test(body)) throw new InvalidCursorError(cursor);
  const name = Buffer.from(body, "base64url").toString("utf8");
  try {
    assertValidToolName(name);
  } catch {
    throw new InvalidCursorError(cursor);
  }
  return name;
}

/**
 * The set of tools a deployment offers. Registration order does not matter: listings are sorted by name so that
 * pagination is stable. Tools hidden by the allow/deny lists stay registered but are neither listed nor returned by
 * `get`, so changing the lists never loses a definition.
 */
export class ToolRegistry {
  readonly #tools = new Map<string, AnyToolDefinition>();
  readonly #listeners = new Set<(change: RegistryChange) => void>();
  #visible: (name: string) => boolean;
  #enabled: (name: string) => boolean = () => true;
  #sorted: AnyToolDefinition[] | undefined;
  #sortedWithDisabled: AnyToolDefinition[] | undefined;
  readonly #pageSize: number;

  constructor(options: ToolRegistryOptions = {}) {
    this.#visible = createNameFilter(options);
    const pageSize = options.pageSize ?? 100;
    if (!Number.isInteger(pageSize) || pageSize < 1) {
      throw new RangeError(`pageSize must be a positive integer, got ${pageSize}.`);
    }
    this.#pageSize = pageSize;
  }

  register(definition: AnyToolDefinition): void {
    const name = definition.tool.name;
    assertValidToolName(name);
    if (this.#tools.has(name)) throw new DuplicateToolError(name);
    this.#tools.set(name, definition);
    this.#changed({ type: "registered", name });
  }

  registerAll(definitions: Iterable<AnyToolDefinition>): void {
    for (const definition of definitions) this.register(definition);
  }

  /** Returns false when no such tool was registered. */
  unregister(name: string): boolean {
    if (!this.#tools.delete(name)) return false;
    this.#changed({ type: "unregistered", name });
    return true;
  }

  /**
   * A visible tool by name, or undefined (unknown, hidden by the allow/deny lists, or switched off). With
   * `includeDisabled`, a switched-off tool is returned too (for management views).
   */
  get(name: string, options: { includeDisabled?: boolean } = {}): AnyToolDefinition | undefined {
    const definition = this.#tools.get(name);
    if (!definition || !this.#visible(name)) return undefined;
    return options.includeDisabled || this.#enabled(name) ? definition : undefined;
  }

  /** Whether a tool is switched on (see `setEnabled`); says nothing about whether it is registered. */
  isEnabled(name: string): boolean {
    return this.#enabled(name);
  }

  has(name: string): boolean {
    return this.get(name) !== undefined;
  }

  /** Every visible tool definition, sorted by name; `includeDisabled` adds the switched-off ones. */
  definitions(options: { includeDisabled?: boolean } = {}): readonly AnyToolDefinition[] {
    this.#sortedWithDisabled ??= [...this.#tools.values()]
      .filter((definition) => this.#visible(definition.tool.name))
      .sort((a, b) => (a.tool.name < b.tool.name ? -1 : a.tool.name > b.tool.name ? 1 : 0));
    if (options.includeDisabled) return this.#sortedWithDisabled;
    this.#sorted ??= this.#sortedWithDisabled.filter((definition) => this.#enabled(definition.tool.name));
    return this.#sorted;
  }

  names(): string[] {
    return this.definitions().map((definition) => definition.tool.name);
  }

  get size(): number {
    return this.definitions().length;
  }

  /** One page of MCP tool objects. An unknown or malformed cursor throws InvalidCursorError. */
  list(options: ListToolsOptions = {}): ToolPage {
    const pageSize = options.pageSize ?? this.#pageSize;
    let candidates = this.definitions({ includeDisabled: options.includeDisabled === true });
    if (options.category !== undefined)
      candidates = candidates.filter((d) => d.category === options.category);
    let start = 0;
    if (options.cursor !== undefined) {
      const after = decodeCursor(options.cursor);
      start = candidates.findIndex((d) => d.tool.name > after);
      if (start === -1) start = candidates.length;
    }
    const page = candidates.slice(start, start + pageSize);
    const result: ToolPage = { tools: page.map((d) => d.tool) };
    const last = page.at(-1);
    if (last && start + pageSize < candidates.length) result.nextCursor = encodeCursor(last.tool.name);
    return result;
  }

  /** Categories of the visible tools, sorted. */
  categories(): string[] {
    return [...new Set(this.definitions().map((d) => d.category))].sort();
  }

  /** Replace the deployment's allow/deny lists. */
  setFilter(config: NameFilterConfig): void {
    this.#visible = createNameFilter(config);
    this.#changed({ type: "filter-changed" });
  }

  /**
   * Switch tools on and off at run time (tool settings), apart from the deployment's allow/deny lists: a switched-off
   * tool is hidden from `get`, `list` and the executor like a denied one, but stays visible to management views
   * (`includeDisabled`). The predicate is asked on every lookup, so tools registered later (a mounted server that
   * connects) are covered too. Call it again after the state behind the predicate changed: listeners hear
   * `filter-changed` (MCP clients get `list_changed`).
   */
  setEnabled(isEnabled: (name: string) => boolean): void {
    this.#enabled = isEnabled;
    this.#changed({ type: "filter-changed" });
  }

  /** Subscribe to changes (the MCP server turns them into `notifications/tools/list_changed`). Returns unsubscribe. */
  onChange(listener: (change: RegistryChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #changed(change: RegistryChange): void {
    this.#sorted = undefined;
    this.#sortedWithDisabled = undefined;
    for (const listener of this.#listeners) {
      try {
        listener(change);
      } catch {
        // A faulty listener must not break registration for everyone else.
      }
    }
  }
}
