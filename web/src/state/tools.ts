import { api, errorText } from "../api/http.js";
import type { ToolInfo } from "../api/types.js";
import { socket } from "./connection.js";
import { Store } from "./external-store.js";

export interface ToolsState {
  tools: ToolInfo[];
  byName: ReadonlyMap<string, ToolInfo>;
  loaded: boolean;
  error: string | undefined;
}

export const toolsStore = new Store<ToolsState>({
  tools: [],
  byName: new Map(),
  loaded: false,
  error: undefined,
});

let loading: Promise<void> | undefined;
let again = false;

/** Every tool, all pages (switched-off ones too: the Tools page shows them). One load at a time; a change meanwhile loads again. */
export function loadTools(): Promise<void> {
  if (loading) {
    again = true;
    return loading;
  }
  loading = (async () => {
    try {
      const tools: ToolInfo[] = [];
      let cursor: string | undefined;
      do {
        const page = await api<{ tools: ToolInfo[]; nextCursor?: string }>(
          `/api/tools?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
        );
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor);
      toolsStore.set({
        tools,
        byName: new Map(tools.map((t) => [t.name, t])),
        loaded: true,
        error: undefined,
      });
    } catch (error) {
      toolsStore.set((state) => ({ ...state, error: errorText(error) }));
    } finally {
      loading = undefined;
      if (again) {
        again = false;
        void loadTools();
      }
    }
  })();
  return loading;
}

/** A tool changed here: shown at once (the server pushes list_changed to the other tabs). */
export function replaceTool(tool: ToolInfo): void {
  toolsStore.set((state) => {
    const tools = state.tools.map((t) => (t.name === tool.name ? tool : t));
    return { ...state, tools, byName: new Map(tools.map((t) => [t.name, t])) };
  });
}

let timer: ReturnType<typeof setTimeout> | undefined;
socket.onPush((push) => {
  if (push.type !== "tools/list_changed") return;
  // A mounted server's tools arrive in bursts: one reload for the burst.
  if (timer) clearTimeout(timer);
  timer = setTimeout(() => void loadTools(), 100);
});
socket.onOpen(() => void loadTools());
