import { describe, expect, it } from "vitest";
import type { HeldOutRequest } from "../../scripts/train/build-dataset.js";
import { type RequestOutcome, score } from "../../scripts/train/eval-model.js";

const zoneRequest: HeldOutRequest = {
  id: 1,
  kind: "get_time",
  request: "Got the time for Europe/Vilnius?",
  expected: { name: "get_time", arguments: { timezone: "Europe/Vilnius", format: "full" } },
};

describe("eval-model scoring", () => {
  it("counts exact arguments in any key order and an answer that quotes the result", () => {
    const right: RequestOutcome = {
      request: zoneRequest,
      calls: [{ name: "get_time", arguments: { format: "full", timezone: "Europe/Vilnius" } }],
      results: ["Sunday, November 22, 2026 at 10:42 AM GMT+2"],
      answer: "In Europe/Vilnius it is Sunday, November 22, 2026 at 10:42 AM GMT+2.",
    };
    expect(score([right])).toMatchObject({
      toolRequests: 1,
      rightTool: 1,
      exactArguments: 1,
      answerHasResult: 1,
    });
  });

  it("does not count a rejected call's error, quoted back, as an answer with the result", () => {
    const error = 'Error: Unknown time zone "Europe/Vilius". Did you mean Europe/Vilnius?';
    const miscopied: RequestOutcome = {
      request: zoneRequest,
      calls: [{ name: "get_time", arguments: { timezone: "Europe/Vilius", format: "full" } }],
      results: [error],
      answer: `Sorry, I could not get the time there. ${error}`,
      firstCallFailed: true,
    };
    expect(score([miscopied])).toMatchObject({ rightTool: 1, exactArguments: 0, answerHasResult: 0 });
  });

  it("scores small talk by whether a tool was called", () => {
    const chat: HeldOutRequest = { id: 2, kind: "chat", request: "thx", expected: null };
    const quiet: RequestOutcome = { request: chat, calls: [], results: [], answer: "You're welcome!" };
    const busy: RequestOutcome = {
      ...quiet,
      calls: [{ name: "calculator", arguments: { expression: "1" } }],
    };
    expect(score([quiet, busy])).toMatchObject({ chatRequests: 2, noToolWhenNoneNeeded: 1 });
  });
});
