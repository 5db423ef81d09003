/** Listings of the Runs API, read from the store: runs (paged), conversations and one conversation's messages. */
import type { AgentMessage } from "../../core/agent-message.js";
import type { RunRecord, RunStatus, RunStore } from "../../store/store.js";
import { badRequest, notFound } from "../http-error.js";

/** A run in a listing. */
export interface RunSummary {
  runId: string;
  conversationId: string;
  status: RunStatus;
  stopReason: string | null;
  model: string;
  steps: number;
  toolCalls: number;
  /** The tools the run's model called (each once, in the order first called). */
  tools: string[];
  createdAt: string;
  updatedAt: string;
}

export interface ConversationSummary {
  conversationId: string;
  /** Set by a rename, else the start of the first prompt; null where the store keeps no titles. */
  title: string | null;
  runs: number;
  lastRunId: string;
  lastStatus: RunStatus;
  updatedAt: string;
}

/** How many runs listings look through: the store lists newest first, with no cursor of its own. */
export const LISTING_WINDOW = 10_000;

/**
 * Runs, newest first, `limit` per page; `cursor` is the opaque `nextCursor` of the previous page (an offset into
 * the newest-first list: runs created meanwhile shift it, so a page may repeat a run, never skip one).
 */
export async function listRuns(
  store: RunStore,
  options: { status?: RunStatus; tool?: string; limit?: number; cursor?: string } = {},
) {
  const limit = options.limit ?? 20;
  let offset = 0;
  if (options.cursor !== undefined) {
    const decoded = Buffer.from(options.cursor, "base64url").toString("utf8");
    offset = Number(decoded);
    if (!/^\d+$/.test(decoded) || !Number.isSafeInteger(offset))
      throw badRequest(
        `cursor "${options.cursor}" is not one this server gave out; omit it to start over.`,
        "cursor",
        "invalid_cursor",
      );
  }
  const status = options.status ? { status: options.status } : {};
  const tool = options.tool;
  // With a tool named, runs are read through the listing window and kept when one of their calls is to that tool.
  const runs = tool
    ? await filterRuns(
        await store.listRuns({ ...status, limit: LISTING_WINDOW }),
        offset + limit + 1,
        (run) => store.listToolCalls(run.id).then((calls) => calls.some((call) => call.name === tool)),
      )
    : await store.listRuns({ ...status, limit: offset + limit + 1 });
  const page = runs.slice(offset, offset + limit);
  const more = runs.length > offset + limit;
  return {
    data: await Promise.all(page.map((run) => summarize(store, run))),
    nextCursor: more ? Buffer.from(String(offset + limit)).toString("base64url") : null,
  };
}

async function filterRuns(
  runs: RunRecord[],
  enough: number,
  keep: (run: RunRecord) => Promise<boolean>,
): Promise<RunRecord[]> {
  const kept: RunRecord[] = [];
  for (const run of runs) {
    if (kept.length >= enough) break;
    if (await keep(run)) kept.push(run);
  }
  return kept;
}

/** Conversations that have runs, most recently active first (from the newest 10,000 runs). */
export async function listConversations(
  store: RunStore,
  limit = 50,
  titles?: (conversationIds: readonly string[]) => Promise<Map<string, string | null>>,
): Promise<ConversationSummary[]> {
  const byId = new Map<string, ConversationSummary>();
  for (const run of await store.listRuns({ limit: LISTING_WINDOW })) {
    const seen = byId.get(run.conversationId);
    if (seen) seen.runs += 1;
    else
      byId.set(run.conversationId, {
        conversationId: run.conversationId,
        title: null,
        runs: 1,
        lastRunId: run.id,
        lastStatus: run.status,
        updatedAt: run.updatedAt,
      });
  }
  const listed = [...byId.values()].slice(0, limit);
  if (titles) {
    const known = await titles(listed.map((conversation) => conversation.conversationId));
    for (const conversation of listed) conversation.title = known.get(conversation.conversationId) ?? null;
  }
  return listed;
}

export async function getConversation(
  store: RunStore,
  conversationId: string,
): Promise<{ conversationId: string; messages: AgentMessage[]; runs: RunSummary[] }> {
  const messages = await store.listMessages(conversationId);
  if (messages.length === 0) throw notFound(`No conversation "${conversationId}".`, "conversation_not_found");
  const runs = await Promise.all(
    (await store.listRuns({ limit: LISTING_WINDOW }))
      .filter((r) => r.conversationId === conversationId)
      .reverse()
      .map((run) => summarize(store, run)),
  );
  return { conversationId, messages, runs };
}

async function summarize(store: RunStore, run: RunRecord): Promise<RunSummary> {
  const tools = [...new Set((await store.listToolCalls(run.id)).map((call) => call.name))];
  return {
    runId: run.id,
    conversationId: run.conversationId,
    status: run.status,
    stopReason: run.stopReason,
    model: run.model,
    steps: run.stepCount,
    toolCalls: run.toolCallCount,
    tools,
    createdAt: run.createdAt,
    updatedAt: run.updatedAt,
  };
}
