import { describe, expect, it } from "vitest";
import { paramPath } from "./param-path.js";

describe("paramPath", () => {
  it("writes a field's path as OpenAI's `param` does", () => {
    expect(paramPath(["messages", 2, "tool_call_id"])).toBe("messages[2].tool_call_id");
    expect(paramPath(["decisions", 0, "callId"])).toBe("decisions[0].callId");
    expect(paramPath(["limit"])).toBe("limit");
    expect(paramPath([])).toBeNull();
  });
});
