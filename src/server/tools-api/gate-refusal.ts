import type { CallGateAnswer } from "../../tools/call-gate.js";

/** A call the gate did not let run, as the server's APIs answer it: HTTP status, error type and code, message. */
export interface GateRefusal {
  status: 403 | 404;
  type: "not_found_error" | "permission_error";
  code: "tool_not_found" | "tool_disabled" | "tool_policy_never" | "approval_required" | "call_denied";
  message: string;
}

/**
 * How the Tools API (`POST /api/tools/{name}/call`) and the WebSocket API (`tools/call`) render the gate's `ask` and
 * `refuse`: the same status, code and advice on both, so a page can switch between them. `listHint` says where the
 * caller lists tools on its surface.
 */
export function gateRefusal(
  name: string,
  answer: Exclude<CallGateAnswer, { action: "run" }>,
  listHint: string,
): GateRefusal {
  if (answer.action === "ask") {
    return {
      status: 403,
      type: "permission_error",
      code: "approval_required",
      message: `${answer.message} Show the call to a person and, once they confirm, send it again with "confirm": true.`,
    };
  }
  switch (answer.reason) {
    case "unknown":
      return {
        status: 404,
        type: "not_found_error",
        code: "tool_not_found",
        message: `${answer.message} ${listHint}`,
      };
    case "switched-off":
      return {
        status: 404,
        type: "not_found_error",
        code: "tool_disabled",
        message: `${answer.message} Switch it on with PATCH /api/tools/${name} {"enabled": true}.`,
      };
    case "never":
      return {
        status: 403,
        type: "permission_error",
        code: "tool_policy_never",
        message: `${answer.message} Change it with PATCH /api/tools/${name} {"policy": "ask"}.`,
      };
    case "denied":
      return { status: 403, type: "permission_error", code: "call_denied", message: answer.message };
  }
}
