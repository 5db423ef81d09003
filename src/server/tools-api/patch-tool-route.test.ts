import { describe, expect, it } from "vitest";
import { HttpError } from "../http-error.js";
import { parseToolSettingsPatch } from "./patch-tool-route.js";

/** The refusal of a body, or undefined when it is accepted. */
function refusal(body: unknown): HttpError | undefined {
  try {
    parseToolSettingsPatch(body);
    return undefined;
  } catch (error) {
    if (error instanceof HttpError) return error;
    throw error;
  }
}

describe("parseToolSettingsPatch", () => {
  it("takes enabled and policy, null resetting either", () => {
    expect(parseToolSettingsPatch({ enabled: false, policy: null })).toEqual({
      enabled: false,
      policy: null,
    });
    expect(parseToolSettingsPatch({ policy: "ask" })).toEqual({ policy: "ask" });
  });

  it("refuses strictly with a 422 naming every problem (so nothing is half-applied)", () => {
    const error = refusal({ enabled: 1, policy: "maybe", x: 1 });
    expect(error).toMatchObject({ status: 422, code: "invalid_settings", param: "enabled" });
    expect(error?.message).toMatch(
      /`enabled` must be.*got 1; `policy` must be.*got "maybe"; unknown field `x`/,
    );
    expect(error?.message).toMatch(/Nothing was changed\.$/);
  });

  it.each([
    ["an array", [], /must be a JSON object/],
    ["no body", undefined, /must be a JSON object/],
    ["nothing to change", {}, /nothing to change/],
  ])("refuses %s", (_, body, message) => {
    const error = refusal(body);
    expect(error?.status).toBe(422);
    expect(error?.message).toMatch(message);
    expect(error?.message).toContain("Nothing was changed");
  });
});
