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

describe("ToolIndex: a tool the request names", () => {
  const index = new ToolIndex([
    tool("sort_list", "Sort the elements of a list in ascending or descending order"),
    tool("array_sort", "Sorts a given list in ascending or descending order"),
    tool("filter_list", "Filters elements of a list based on a given condition"),
    tool("add", "Performs the addition of two integers"),
    tool("sum_numbers", "Add up numbers: add two or more values and return their sum"),
    tool("getCurrentTime", "Returns the current local time"),
  ]);

  it("ranks a name spelled as an identifier, or quoted, above every tool it does not name", () => {
    const ranked = index.search("Sort ['b', 'a'] descending, then keep the words with 'a' using filter_list");
    expect(ranked[0]?.name).toBe("filter_list");
    expect(ranked[1]?.name).toBe("sort_list");
    expect(index.search("call getCurrentTime please")[0]?.name).toBe("getCurrentTime");
    expect(index.search("use the 'add' function to add up numbers")[0]?.name).toBe("add");
  });

  it("takes a plain word as a word, not as a tool's name", () => {
    // "add" here is a verb: the tool whose description covers the request ranks first, as without names.
    expect(index.search("add up numbers and return their sum")[0]?.name).toBe("sum_numbers");
    // A name the catalogue does not have changes nothing.
    expect(index.search("sort with quick_sort ascending")[0]?.name).toBe(
      index.search("sort ascending")[0]?.name,
    );
  });

  it("reuses its scores between searches: a search leaves nothing behind for the next", () => {
    const first = index.search("sort a list descending");
    index.search("filter_list elements condition");
    expect(index.search("sort a list descending")).toEqual(first);
  });
});

describe("ToolIndex: hostile requests", () => {
  const index = new ToolIndex([
    tool("get_weather", "Current conditions for a city"),
    tool("sortList", "Sort a list"),
  ]);

  // Each shape once cost time quadratic in its length (a name pattern that backtracked) or threw (half a million words
  // spread into one call's arguments): 50 KB of capitals took 7.6 s, a megabyte of `AB1` threw a RangeError.
  it.each([
    ["capitals, then one small letter", `${"A".repeat(2_000_000)}b`],
    ["joined words", "AB1".repeat(700_000)],
    ["dotted", "a.".repeat(1_000_000)],
    ["dots, then a letter", `${".".repeat(2_000_000)}a`],
    ["quoted words", "'a' ".repeat(500_000)],
  ])("searches 2 MB of %s without stalling or throwing", (_, query) => {
    expect(() => index.search(query, 5)).not.toThrow();
    // The request's words still count after the noise: a name spelled out, and a plain word.
    expect(index.search(`${query} sortList`, 1)[0]?.name).toBe("sortList");
  });

  it("still reads a request's words after a long unbroken run", () => {
    expect(index.search(`${"x".repeat(100_000)} weather`)[0]?.name).toBe("get_weather");
  });
});
