import { type TurnRouteOptions, turnRoute, type WireApi } from "../openai/turn-route.js";
import { buildMessage, MessagesEventWriter } from "./messages-writer.js";
import { type MessagesRequest, parseMessagesRequest } from "./parse-messages-request.js";

/** The Messages wire: a `message` whole, Anthropic's named events streamed (errors in Anthropic's shape: see errorResponse). */
export const MESSAGES_API: WireApi<MessagesRequest> = {
  parse: parseMessagesRequest,
  callIdPrefix: "toolu_",
  respond: buildMessage,
  encoder: (request) => new MessagesEventWriter(request),
};

/** `POST /v1/messages`. */
export function messagesHandler(options: TurnRouteOptions) {
  return turnRoute(MESSAGES_API, options);
}
