import type { Context } from "hono";
import type { Redactor } from "../../tools/redact-secrets.js";
import type { ModelCatalog } from "../model-catalog.js";
import { openModelTurn, type TurnRequest } from "./model-turn.js";
import { streamTurn, type WireEncoder } from "./stream-turn.js";
import { turnFailure } from "./turn-failure.js";
import type { TurnOutput } from "./turn-reader.js";

/** One /v1 API (Chat Completions, Responses, Messages): how it reads a request and writes a turn and an error. */
export interface WireApi<R extends TurnRequest> {
  /** Validate a body (undefined: not JSON) and convert it; throws a 400 HttpError naming the field at fault. */
  parse(body: unknown): R;
  /** Prefix of the call ids this API hands out (`call_`, `toolu_`). */
  callIdPrefix: string;
  /** The non-streaming response body for a whole turn. */
  respond(request: R, outputs: readonly TurnOutput[]): unknown;
  /** A fresh encoder for one streamed turn. */
  encoder(request: R): WireEncoder;
}

export interface TurnRouteOptions {
  catalog: ModelCatalog;
  /** The server's redactor (the tool executor's): the model's words pass through it on every API. */
  redactor: Redactor | undefined;
}

/**
 * The handler every /v1 API shares: read the body, let the API validate it, start the turn (everything that can be
 * refused is refused before the 200 headers: see openModelTurn), then answer whole or as a stream. A client that goes
 * away stops the generation, and its context sequence is free again at once.
 */
export function turnRoute<R extends TurnRequest>(api: WireApi<R>, options: TurnRouteOptions) {
  return async (c: Context): Promise<Response> => {
    const controller = new AbortController();
    const clientGone = () => controller.abort(new Error("the client closed the connection"));
    c.req.raw.signal.addEventListener("abort", clientGone, { once: true });
    const stop = (reason: unknown) => {
      c.req.raw.signal.removeEventListener("abort", clientGone);
      controller.abort(reason);
    };
    try {
      const body: unknown = await c.req.json().catch(() => undefined);
      const request = api.parse(body);
      const turn = await openModelTurn({
        catalog: options.catalog,
        request,
        signal: controller.signal,
        redactor: options.redactor,
        callIdPrefix: api.callIdPrefix,
      });
      if (request.stream)
        return streamTurn(turn, api.encoder(request), () => stop(new Error("the response stream ended")));
      const outputs: TurnOutput[] = [];
      try {
        for (let step = await turn.next(); !step.done; step = await turn.next()) outputs.push(step.value);
      } finally {
        stop(new Error("the response is complete"));
        await turn.close();
      }
      return c.json(api.respond(request, outputs) as object);
    } catch (error) {
      stop(error);
      // Written by the app's error handler, in the shape of the API the path names (Anthropic's on /v1/messages).
      throw turnFailure(error);
    }
  };
}
