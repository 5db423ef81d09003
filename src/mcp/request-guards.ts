import type { JSONRPCErrorResponse, RequestId } from "@modelcontextprotocol/server";

function describeType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "string" ? "a string" : `a ${typeof value}`;
}

/**
 * A `tools/call` whose `arguments` is not a JSON object (a string, an array, a number…) gets -32602 with one plain
 * sentence, before the SDK's schema check would answer with a dump of its validator's issues.
 */
export function toolCallArgumentsError(message: unknown): JSONRPCErrorResponse | undefined {
  if (!message || typeof message !== "object") return undefined;
  const { method, id, params } = message as {
    method?: unknown;
    id?: RequestId;
    params?: { arguments?: unknown };
  };
  if (method !== "tools/call" || id === undefined || !params || typeof params !== "object") return undefined;
  const args = params.arguments;
  if (args === undefined || (args !== null && typeof args === "object" && !Array.isArray(args)))
    return undefined;
  return {
    jsonrpc: "2.0",
    id,
    error: {
      code: -32602,
      message: `Invalid params: "arguments" of tools/call must be a JSON object of named arguments, e.g. {"expression": "2+2"}; got ${describeType(args)}.`,
    },
  };
}

/** A request reusing the id of one still running on the same connection is refused at once (it used to hang). */
export function duplicateIdError(id: RequestId): JSONRPCErrorResponse {
  return {
    jsonrpc: "2.0",
    id,
    error: {
      code: -32600,
      message: `Invalid request: id ${JSON.stringify(id)} is already used by a request still running on this connection; send each request with a new id.`,
    },
  };
}
