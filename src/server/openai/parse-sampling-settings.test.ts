import { describe, expect, it } from "vitest";
import { HttpError } from "../http-error.js";
import { parseChatRequest } from "./parse-chat-request.js";

const base = { model: "m", messages: [{ role: "user", content: "hi" }] };

/** The 400 a body gets, as `{param, message, code}`. */
function refusal(extra: Record<string, unknown>) {
  try {
    parseChatRequest({ ...base, ...extra });
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    expect(error.status).toBe(400);
    expect(error.type).toBe("invalid_request_error");
    return { param: error.param, message: error.message, code: error.code };
  }
  throw new Error(`accepted ${JSON.stringify(extra)}`);
}

describe("parseChatRequest: sampling settings", () => {
  it("converts OpenAI's fields, a single stop string becoming a list", () => {
    const request = parseChatRequest({
      ...base,
      temperature: 0,
      top_p: 0.5,
      seed: -3,
      stop: "END",
      presence_penalty: -2,
      frequency_penalty: 1.5,
    });
    expect(request.sampling).toEqual({
      temperature: 0,
      topP: 0.5,
      seed: -3,
      stop: ["END"],
      presencePenalty: -2,
      frequencyPenalty: 1.5,
    });
  });

  it("leaves sampling undefined when nothing is set, null meaning absent, and drops empty stop strings", () => {
    expect(parseChatRequest(base).sampling).toBeUndefined();
    expect(
      parseChatRequest({
        ...base,
        temperature: null,
        seed: null,
        stop: [""],
        logprobs: false,
        top_logprobs: null,
      }).sampling,
    ).toBeUndefined();
    expect(parseChatRequest({ ...base, stop: ["a", "", "b"] }).sampling).toEqual({ stop: ["a", "b"] });
  });

  it.each([
    [{ temperature: 2.5 }, "temperature"],
    [{ temperature: -0.1 }, "temperature"],
    [{ temperature: "0.5" }, "temperature"],
    [{ top_p: 1.01 }, "top_p"],
    [{ presence_penalty: 3 }, "presence_penalty"],
    [{ frequency_penalty: -2.5 }, "frequency_penalty"],
    [{ seed: 1.5 }, "seed"],
    [{ seed: "7" }, "seed"],
    [{ stop: ["a", "b", "c", "d", "e"] }, "stop"],
    [{ stop: [1] }, "stop"],
    [{ stop: { s: "x" } }, "stop"],
    [{ logprobs: "yes" }, "logprobs"],
    [{ n: 2 }, "n"],
  ])("refuses %j with a 400 naming %s", (extra, param) => {
    expect(refusal(extra).param).toBe(param);
  });

  it("refuses logprobs and top_logprobs as not supported", () => {
    expect(refusal({ logprobs: true })).toMatchObject({ param: "logprobs", code: "unsupported_parameter" });
    expect(refusal({ logprobs: true }).message).toMatch(/not supported/);
    expect(refusal({ top_logprobs: 3 })).toMatchObject({
      param: "top_logprobs",
      code: "unsupported_parameter",
    });
  });
});

describe("parseChatRequest: response_format", () => {
  it("reads text, json_object and json_schema (strict kept; a missing schema is any object)", () => {
    expect(parseChatRequest({ ...base, response_format: { type: "text" } }).responseFormat).toEqual({
      type: "text",
    });
    expect(parseChatRequest({ ...base, response_format: { type: "json_object" } }).responseFormat).toEqual({
      type: "json_object",
    });
    const schema = { type: "object", properties: { a: { type: "string" } }, required: ["a"] };
    expect(
      parseChatRequest({
        ...base,
        response_format: { type: "json_schema", json_schema: { name: "answer", schema, strict: true } },
      }).responseFormat,
    ).toEqual({ type: "json_schema", name: "answer", schema, strict: true });
    expect(
      parseChatRequest({ ...base, response_format: { type: "json_schema", json_schema: { name: "any" } } })
        .responseFormat,
    ).toEqual({ type: "json_schema", name: "any", schema: { type: "object" } });
    expect(parseChatRequest(base).responseFormat).toBeUndefined();
  });

  it.each([
    ["json", "response_format"],
    [{ type: "xml" }, "response_format.type"],
    [{ type: "json_schema" }, "response_format.json_schema"],
    [
      { type: "json_schema", json_schema: { name: "has space", schema: {} } },
      "response_format.json_schema.name",
    ],
    [{ type: "json_schema", json_schema: { name: "a", schema: [] } }, "response_format.json_schema.schema"],
    [
      { type: "json_schema", json_schema: { name: "a", strict: "yes" } },
      "response_format.json_schema.strict",
    ],
  ])("refuses %j with a 400 naming %s", (format, param) => {
    expect(refusal({ response_format: format }).param).toBe(param);
  });
});
