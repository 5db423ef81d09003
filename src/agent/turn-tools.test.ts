import { describe, expect, it } from "vitest";
import { AgentConfigError } from "./agent-errors.js";
import { TurnTools } from "./turn-tools.js";

const catalogue = ["get_weather", "send_email", "roll_dice", "get_time"].map((name) => ({
  name,
  description: name.replace("_", " "),
  inputSchema: { type: "object" as const },
}));
const ask = (text: string) => ({ messages: [{ role: "user" as const, content: text }], called: [] });

describe("TurnTools", () => {
  it("offers the whole catalogue without a selection, or when it is no longer than maxTools", () => {
    expect(new TurnTools(undefined).for(catalogue, ask("weather"), "auto")).toBe(catalogue);
    expect(new TurnTools({ maxTools: 4 }).for(catalogue, ask("weather"), "auto")).toBe(catalogue);
  });

  it("picks per turn, keeps a tool the tool choice names, and reuses its index for the same catalogue", () => {
    const turns = new TurnTools({ maxTools: 1 });
    expect(turns.for(catalogue, ask("the weather please"), "auto").map((t) => t.name)).toEqual([
      "get_weather",
    ]);
    expect(turns.for(catalogue, ask("the weather please"), { name: "roll_dice" }).map((t) => t.name)).toEqual(
      ["get_weather", "roll_dice"],
    );
    expect(
      turns.for(catalogue, { ...ask("email it"), called: ["get_time"] }, "auto").map((t) => t.name),
    ).toEqual(["send_email", "get_time"]);
  });

  it("refuses a maxTools that is not a positive integer", () => {
    expect(() => new TurnTools({ maxTools: 0 })).toThrow(AgentConfigError);
    expect(() => new TurnTools({ maxTools: 2.5 })).toThrow(/positive integer/);
  });
});
