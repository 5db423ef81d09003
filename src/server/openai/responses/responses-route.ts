import { type TurnRouteOptions, turnRoute, type WireApi } from "../turn-route.js";
import { parseResponsesRequest, type ResponsesRequest } from "./parse-responses-request.js";
import { buildResponse, ResponsesEventWriter } from "./responses-writer.js";

/** The Responses wire: a `response` object whole, semantic events streamed. */
export const RESPONSES_API: WireApi<ResponsesRequest> = {
  parse: parseResponsesRequest,
  callIdPrefix: "call_",
  respond: buildResponse,
  encoder: (request) => new ResponsesEventWriter(request),
};

/** `POST /v1/responses`. */
export function responsesHandler(options: TurnRouteOptions) {
  return turnRoute(RESPONSES_API, options);
}
