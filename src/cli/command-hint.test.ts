import path from "node:path";
import { describe, expect, it } from "vitest";
import { commandHint, shellQuote } from "./command-hint.js";

describe("commandHint", () => {
  it("repeats --db (absolute) and, where the command takes it, --config", () => {
    expect(commandHint(["runs", "resume", "run_1"], {})).toBe("toolbridge runs resume run_1");
    expect(commandHint(["runs", "resume", "run_1"], { db: "x.db", config: "c.json" })).toBe(
      `toolbridge runs resume run_1 --db ${path.resolve("x.db")}`,
    );
    expect(
      commandHint(
        ["chat", "--conversation", "c1"],
        { db: "/d/x.db", config: "/d/c.json" },
        { withConfig: true },
      ),
    ).toBe("toolbridge chat --conversation c1 --db /d/x.db --config /d/c.json");
  });

  it("quotes only what a shell would split or expand", () => {
    expect(shellQuote("/tmp/a b/it's.db")).toBe(`'/tmp/a b/it'\\''s.db'`);
    expect(shellQuote("call_1_1")).toBe("call_1_1");
  });
});
