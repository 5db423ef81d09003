import { Hono } from "hono";
import type { RunStatus } from "../../store/store.js";
import { badRequest } from "../http-error.js";
import { readJsonBody } from "../read-json-body.js";
import { listPendingApprovals, type PendingApproval } from "./pending-approvals.js";
import { type RunEventStreamOptions, runEventStream } from "./run-event-stream.js";
import {
  decisionsSchema,
  parseBody,
  parseSeq,
  renameConversationSchema,
  startRunSchema,
} from "./run-request-schemas.js";
import type { RunService } from "./run-service.js";

export interface RunsRoutesOptions extends RunEventStreamOptions {
  /** Recorded as who decided, on decisions made through this API. Default "api". */
  decidedBy?: string;
  /**
   * Every pending call in the store (`GET /api/approvals`, pushed on /ws). Default: read from the service's store;
   * `serve` passes one that reads nothing while its database does not exist yet.
   */
  pendingApprovals?: () => Promise<PendingApproval[]>;
}

const STATUSES: readonly RunStatus[] = ["running", "paused", "finished", "stopped"];

/**
 * The Runs API, mounted at /api: runs (start, list, show, events, decisions, cancel) and conversations. What a route
 * throws is written by the app's error handler (errorResponse).
 */
export function createRunsRoutes(service: RunService, options: RunsRoutesOptions = {}): Hono {
  const api = new Hono();
  const by = options.decidedBy ?? "api";

  api.post("/runs", async (c) => {
    const body = parseBody(startRunSchema, await readJsonBody(c), "run");
    const started = await service.start({
      message: body.message,
      ...(body.conversationId ? { conversationId: body.conversationId } : {}),
      ...(body.model ? { model: body.model } : {}),
      ...(body.toolChoice ? { toolChoice: body.toolChoice } : {}),
      ...(body.limits ? { limits: body.limits } : {}),
    });
    return c.json(started, 202, { location: `/api/runs/${started.runId}` });
  });

  api.get("/models", (c) =>
    c.json({
      data: service.models.names().map((name) => ({ name, default: name === service.models.defaultName })),
      default: service.models.defaultName,
    }),
  );

  const pending = options.pendingApprovals ?? (() => listPendingApprovals(service.store));
  api.get("/approvals", async (c) => c.json({ data: await pending() }));

  api.get("/runs", async (c) => {
    const status = c.req.query("status");
    if (status !== undefined && !STATUSES.includes(status as RunStatus))
      throw badRequest(
        `status must be one of ${STATUSES.join(", ")}, got "${status}".`,
        "status",
        "invalid_status",
      );
    const limitText = c.req.query("limit");
    const limit = limitText === undefined ? 20 : Number(limitText);
    if (!/^\d+$/.test(limitText ?? "20") || limit < 1 || limit > 500)
      throw badRequest(
        `limit must be a whole number from 1 to 500, got "${limitText}".`,
        "limit",
        "invalid_limit",
      );
    const cursor = c.req.query("cursor");
    const tool = c.req.query("tool");
    return c.json(
      await service.listRuns({
        limit,
        ...(status ? { status: status as RunStatus } : {}),
        ...(tool ? { tool } : {}),
        ...(cursor ? { cursor } : {}),
      }),
    );
  });

  api.get("/runs/:id", async (c) => c.json(await service.getRun(c.req.param("id"))));

  api.get("/runs/:id/events", async (c) => {
    const header = c.req.header("last-event-id");
    const after =
      header !== undefined ? parseSeq(header, "Last-Event-ID") : parseSeq(c.req.query("after"), "after");
    return runEventStream(service, c.req.param("id"), after, c.req.raw.signal, options);
  });

  api.post("/runs/:id/decisions", async (c) => {
    const runId = c.req.param("id");
    const body = parseBody(decisionsSchema, await readJsonBody(c), "decisions");
    const result = await service.decide(runId, body.decisions, by);
    return c.json({ runId, ...result });
  });

  api.post("/runs/:id/cancel", async (c) => {
    const result = await service.cancel(c.req.param("id"), by);
    // Another instance drives the run and has not stopped it yet: accepted, it will (the request is recorded).
    return c.json(result, result.status === "cancelling" ? 202 : 200);
  });

  api.get("/conversations", async (c) => c.json({ data: await service.listConversations() }));
  api.get("/conversations/:id", async (c) => c.json(await service.getConversation(c.req.param("id"))));
  api.patch("/conversations/:id", async (c) => {
    const { title } = parseBody(renameConversationSchema, await readJsonBody(c), "rename");
    return c.json(await service.renameConversation(c.req.param("id"), title));
  });
  api.delete("/conversations/:id", async (c) => {
    const cancelRuns = c.req.query("cancelRuns");
    if (cancelRuns !== undefined && cancelRuns !== "true" && cancelRuns !== "false")
      throw badRequest(
        `cancelRuns must be true or false, got "${cancelRuns}".`,
        "cancelRuns",
        "invalid_cancel_runs",
      );
    return c.json(
      await service.deleteConversation(c.req.param("id"), { cancelRuns: cancelRuns === "true", by }),
    );
  });

  return api;
}
