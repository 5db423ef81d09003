import type { CallGateAnswer } from "../../tools/call-gate.js";
import { HttpError } from "../http-error.js";

/**
 * How the Tools API (`POST /api/tools/{name}/call`) and the WebSocket API (`tools/call`) answer the gate's `ask` and
 * `refuse`: the same status, code and advice on both, so a page can switch between them. `listHint` says where the
 * caller lists tools on its surface. Thrown; written in the surface's shape.
 */
export function gateRefusal(
  name: string,
  answer: Exclude<CallGateAnswer, { action: "run" }>,
  listHint: string,
): HttpError {
  if (answer.action === "ask") {
    return new HttpError(
      403,
      `${answer.message} Show the call to a person and, once they confirm, send it again with "confirm": true.`,
      { code: "approval_required" },
    );
  }
  switch (answer.reason) {
    case "unknown":
      return new HttpError(404, `${answer.message} ${listHint}`, { code: "tool_not_found" });
    case "switched-off":
      return new HttpError(
        404,
        `${answer.message} Switch it on with PATCH /api/tools/${name} {"enabled": true}.`,
        { code: "tool_disabled" },
      );
    case "never":
      return new HttpError(
        403,
        `${answer.message} Change it with PATCH /api/tools/${name} {"policy": "ask"}.`,
        { code: "tool_policy_never" },
      );
    case "denied":
      return new HttpError(403, answer.message, { code: "call_denied" });
  }
}
