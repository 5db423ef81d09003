import { describe, expect, it } from "vitest";
import { parseToolCalls } from "../parse-tool-calls.js";
import { firefunctionV2Protocol as p } from "./firefunction-v2.js";

describe("firefunction_v2", () => {
  it("renders every call in one functools list after the prose, as the chat template does", () => {
    const text = p.renderAssistantTurn({
      content: "Checking.",
      calls: [
        { id: "a", name: "get_weather", arguments: { city: "Paris" } },
        { id: "b", name: "get_time", arguments: {} },
      ],
    });
    expect(text).toBe(
      'Checking. functools[{"name":"get_weather","arguments":{"city":"Paris"}}, {"name":"get_time","arguments":{}}]',
    );
    const r = parseToolCalls(p, text);
    expect(r.content).toBe("Checking.");
    expect(r.calls.map((c) => c.name)).toEqual(["get_weather", "get_time"]);
  });

  it("holds back a possible marker at the end of a chunk and gives it back when it is prose", () => {
    const parser = p.createParser();
    const first = parser.push("see functo");
    expect(first).toEqual([{ type: "content", text: "see " }]);
    expect([...parser.push("ols docs"), ...parser.end()]).toEqual([
      { type: "content", text: "functools docs" },
    ]);
  });
});
