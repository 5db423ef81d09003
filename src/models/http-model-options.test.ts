import { afterEach, describe, expect, it, vi } from "vitest";
import { AnthropicMessagesModel } from "./anthropic/anthropic-messages-model.js";
import { resolveHttpModel, sdkClientOptions } from "./http-model-options.js";
import { ModelConfigError } from "./model-errors.js";
import { OpenAIChatModel } from "./openai/openai-chat-model.js";

const backend = {
  name: "demo",
  exampleModel: "demo-1",
  baseURLEnv: "DEMO_BASE_URL",
  defaultBaseURL: "https://demo.invalid/v1",
};

afterEach(() => vi.unstubAllEnvs());

describe("HTTP backends share one way to resolve their model, server and client options", () => {
  it("the server is the option, else the backend's variable, else its public API; the id names backend and model", () => {
    expect(resolveHttpModel(backend, { model: "m" })).toEqual({
      id: "demo:m",
      baseURL: "https://demo.invalid/v1",
    });
    vi.stubEnv("DEMO_BASE_URL", "http://127.0.0.1:9/v1");
    expect(resolveHttpModel(backend, { model: "m", id: "mine" })).toEqual({
      id: "mine",
      baseURL: "http://127.0.0.1:9/v1",
    });
    expect(resolveHttpModel(backend, { model: "m", baseURL: "http://h/v1" }).baseURL).toBe("http://h/v1");
  });

  it("a missing model name is a ModelConfigError naming the backend and an example, in every backend", () => {
    expect(() => resolveHttpModel(backend, { model: "" })).toThrow(
      'The demo backend needs a model name, e.g. { model: "demo-1" }.',
    );
    expect(() => new OpenAIChatModel({ model: "" })).toThrow(ModelConfigError);
    expect(() => new OpenAIChatModel({ model: "" })).toThrow(/openai backend needs a model name/);
    expect(() => new AnthropicMessagesModel({ model: "", apiKey: "k" })).toThrow(
      /anthropic backend needs a model name, e.g. \{ model: "claude-sonnet-4-5" \}/,
    );
    expect(new OpenAIChatModel({ model: "gpt-x", apiKey: "k" }).id).toBe("openai:gpt-x");
  });

  it("SDK clients never retry on their own, and get headers and a timeout only when given", () => {
    expect(sdkClientOptions({})).toEqual({ maxRetries: 0 });
    expect(sdkClientOptions({ headers: { "x-a": "1" }, timeoutMs: 500 })).toEqual({
      maxRetries: 0,
      defaultHeaders: { "x-a": "1" },
      timeout: 500,
    });
  });
});
