import { describe, expect, it } from "vitest";
import { openAISamplingFields } from "./openai-sampling-fields.js";

describe("openAISamplingFields", () => {
  it("takes the request's settings over the model's, in OpenAI's field names, and leaves out what neither sets", () => {
    expect(
      openAISamplingFields(
        { temperature: 0, seed: 7, stop: ["x"] },
        { temperature: 0.7, topP: 0.9, presencePenalty: 1 },
      ),
    ).toEqual({ temperature: 0, top_p: 0.9, seed: 7, presence_penalty: 1 });
    expect(openAISamplingFields(undefined, {})).toEqual({});
  });
});
