import { describe, expect, it } from "vitest";
import { selectTools } from "./select-tools.js";
import { ToolIndex } from "./tool-index.js";

const names = [
  "get_weather",
  "send_email",
  "roll_dice",
  "get_time",
  "stock_price",
  "translate_text",
  "play_music",
];
const tools = names.map((name) => ({
  name,
  description: `${name.replace("_", " ")} tool`,
  inputSchema: { type: "object" as const },
}));
const index = new ToolIndex(tools);
const offered = (input: Partial<Parameters<typeof selectTools>[0]>) =>
  selectTools({ tools, index, requests: [], selection: { maxTools: 2 }, ...input }).map((t) => t.name);

describe("selectTools", () => {
  it("offers the best maxTools for the latest request, in the catalogue's order", () => {
    expect(offered({ requests: ["translate this text and email it"] })).toEqual([
      "send_email",
      "translate_text",
    ]);
    expect(offered({ requests: [], selection: { maxTools: 10 } })).toEqual(names);
  });

  it("adds the always tools (names or patterns), the called ones and the forced one on top", () => {
    expect(
      offered({
        requests: ["weather?"],
        selection: { maxTools: 1, always: ["get_t*"] },
        called: ["stock_price"],
        keep: ["roll_dice"],
      }),
    ).toEqual(["get_weather", "roll_dice", "get_time", "stock_price"]);
  });

  it("lets the latest request decide, earlier ones count less", () => {
    const requests = ["play some music", "what's the weather", "now the weather in Oslo please, weather"];
    expect(offered({ requests, selection: { maxTools: 1 } })).toEqual(["get_weather"]);
    expect(offered({ requests, selection: { maxTools: 2 } })).toEqual(["get_weather", "play_music"]);
  });
});
