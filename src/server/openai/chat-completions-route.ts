import { badRequest } from "../http-error.js";
import { buildChatCompletion, ChatChunkWriter } from "./chat-completion-writer.js";
import { type ChatRequest, parseChatRequest } from "./parse-chat-request.js";
import { type TurnRouteOptions, turnRoute, type WireApi } from "./turn-route.js";

/** The Chat Completions wire: `chat.completion` whole, `chat.completion.chunk`s streamed. */
export const CHAT_COMPLETIONS_API: WireApi<ChatRequest> = {
  parse(body) {
    if (body === undefined) throw badRequest("The request body is not valid JSON.", null, "invalid_json");
    return parseChatRequest(body);
  },
  callIdPrefix: "call_",
  respond: (request, outputs) => buildChatCompletion(request.model, outputs),
  encoder: (request) => new ChatChunkWriter(request.model, request.includeUsage),
};

/** `POST /v1/chat/completions`: after a 200, a failure ends the stream with `data: {"error": …}` (an APIError to the openai client). */
export function chatCompletionsHandler(options: TurnRouteOptions) {
  return turnRoute(CHAT_COMPLETIONS_API, options);
}
