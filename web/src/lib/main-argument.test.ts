import { describe, expect, it } from "vitest";
import { mainArgument } from "./main-argument.js";

describe("main argument chip", () => {
  it("prefers the schema's first required string, else the first short value", () => {
    const schema = {
      type: "object",
      required: ["path"],
      properties: { mode: { type: "string" }, path: { type: "string" } },
    };
    expect(mainArgument({ mode: "w", path: "notes/a.txt" }, schema)).toBe("notes/a.txt");
    expect(mainArgument({ expression: "15% of 47.50" })).toBe("15% of 47.50");
    expect(mainArgument({ a: 3, b: 4 })).toBe("3");
    expect(mainArgument({ nested: { x: 1 } })).toBeUndefined();
    expect(mainArgument(undefined)).toBeUndefined();
  });
});
