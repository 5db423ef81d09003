import type { Tool } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { nameWords, normalizeTerm, ToolIndex } from "./tool-index.js";

const tool = (name: string, description: string, properties: Record<string, object> = {}): Tool =>
  ({ name, description, inputSchema: { type: "object", properties } }) as Tool;

describe("ToolIndex", () => {
  it("splits names into words and folds inflections, the same way for tools and questions", () => {
    expect(nameWords("get_current_weather")).toBe("get current weather");
    expect(nameWords("calculateBMI")).toBe("calculate BMI");
    expect(nameWords("HTTPServer.start")).toBe("HTTP Server start");
    expect(nameWords("Trains_1_FindTrains")).toBe("Trains 1 Find Trains");
    expect(normalizeTerm("Files")).toBe("file");
    expect(normalizeTerm("converting")).toBe("convert");
    expect(normalizeTerm("cities")).toBe("city");
    expect(normalizeTerm("status")).toBe("status");
    expect(normalizeTerm("the")).toBeNull();
  });

  it("ranks by name, description and parameters, the name counting most", () => {
    const index = new ToolIndex([
      tool("get_weather", "Current conditions for a city"),
      tool("send_email", "Send a message", { recipient: { type: "string", description: "email address" } }),
      tool("convert_units", "Convert between units of length, weight and temperature"),
      tool("book_table", "Reserve a table at a restaurant", { cuisine: { enum: ["italian", "thai"] } }),
    ]);
    expect(index.size).toBe(4);
    expect(index.search("what's the weather in Oslo?")[0]?.name).toBe("get_weather");
    expect(index.search("email my boss")[0]?.name).toBe("send_email");
    expect(index.search("how many kilometers is 5 miles; convert it")[0]?.name).toBe("convert_units");
    expect(index.search("somewhere thai to eat")[0]?.name).toBe("book_table");
    expect(index.search("temperature", 1)).toHaveLength(1);
    expect(index.search("zzz qqq")).toEqual([]);
  });

  it("finds Latin words inside text in another script", () => {
    const index = new ToolIndex([
      tool("create_workspace", "Create a workspace from a branch"),
      tool("x", "y"),
    ]);
    expect(index.search("我可以创建一个名为'DevelopmentEnv'的workspace吗")[0]?.name).toBe("create_workspace");
  });

  it("searches a pasted page by its first 64 distinct words, each once", () => {
    const index = new ToolIndex([
      tool("get_weather", "Current conditions for a city"),
      tool("send_email", "Send a message to an address"),
    ]);
    const filler = Array.from({ length: 100 }, (_, i) => `word${i}`).join(" ");
    expect(index.search(`weather weather ${filler} email`).map((m) => m.name)).toEqual(["get_weather"]);
    expect(index.search(`email ${filler} weather`).map((m) => m.name)).toEqual(["send_email"]);
    // Repeating a word does not outweigh another word of the request.
    const once = index.search("weather email");
    const repeated = index.search("weather weather weather email");
    expect(repeated).toEqual(once);
  });
});
