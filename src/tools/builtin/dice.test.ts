import { describe, expect, it } from "vitest";
import { resultText } from "../normalize-tool-result.js";
import { ToolExecutor } from "../tool-executor.js";
import { ToolRegistry } from "../tool-registry.js";
import { createDiceTool } from "./dice.js";

/**
 * A random source that makes the next dice show `faces`, in order. Each entry is [face, sides]; the draw is the middle
 * of that face's slice of [0, 1), so `floor(random() * sides) + 1` gives the face back.
 */
function scripted(...faces: Array<[number, number]>): () => number {
  let index = 0;
  return () => {
    const entry = faces[index++];
    if (!entry) throw new Error(`the test scripted ${faces.length} dice, but more were rolled`);
    const [face, sides] = entry;
    return (face - 0.5) / sides;
  };
}

const d = (sides: number, ...faces: number[]): Array<[number, number]> => faces.map((face) => [face, sides]);

function executorWith(random?: () => number): ToolExecutor {
  const registry = new ToolRegistry();
  registry.register(createDiceTool(random ? { random } : {}));
  return new ToolExecutor(registry, { redact: false });
}

async function roll(notation: string, random?: () => number) {
  return executorWith(random).call("roll_dice", { notation });
}

describe("roll_dice output", () => {
  it("reports a single die as just its value", async () => {
    const result = await roll("1d20", scripted(...d(20, 17)));
    expect(resultText(result)).toBe("Rolled 1d20: 17");
    expect(result.structuredContent).toEqual({ notation: "1d20", rolls: [17], kept: [17], total: 17 });
  });

  it("shows dice, modifier and total", async () => {
    const result = await roll("2d6+3", scripted(...d(6, 4, 1)));
    expect(resultText(result)).toBe("Rolled 2d6+3: [4, 1] + 3 = 8");
    expect(result.structuredContent).toEqual({ notation: "2d6+3", rolls: [4, 1], kept: [4, 1], total: 8 });
  });

  it("shows several dice without a modifier", async () => {
    const result = await roll("3d6", scripted(...d(6, 2, 5, 3)));
    expect(resultText(result)).toBe("Rolled 3d6: [2, 5, 3] = 10");
  });

  it("shows which dice were kept for keep-highest", async () => {
    const result = await roll("4d6kh3", scripted(...d(6, 3, 6, 2, 4)));
    expect(resultText(result)).toBe("Rolled 4d6kh3: [6, 4, 3, 2] → kept [6, 4, 3] = 13");
    expect(result.structuredContent).toEqual({
      notation: "4d6kh3",
      rolls: [3, 6, 2, 4],
      kept: [3, 6, 4],
      total: 13,
    });
  });

  it("handles keep-lowest, drop-lowest and drop-highest", async () => {
    expect(resultText(await roll("2d20kl1", scripted(...d(20, 15, 8))))).toBe(
      "Rolled 2d20kl1: [15, 8] → kept [8] = 8",
    );
    expect(resultText(await roll("4d6dl1", scripted(...d(6, 1, 5, 5, 2))))).toBe(
      "Rolled 4d6dl1: [5, 5, 2, 1] → kept [5, 5, 2] = 12",
    );
    expect(resultText(await roll("3d8dh1", scripted(...d(8, 8, 1, 4))))).toBe(
      "Rolled 3d8dh1: [8, 4, 1] → kept [4, 1] = 5",
    );
  });

  it("marks exploded dice and counts the extra rolls", async () => {
    // Both dice show 6; then the first explodes into a 2 and the second into a 3, each listed after its die.
    const result = await roll("2d6!", scripted(...d(6, 6, 6, 2, 3)));
    expect(resultText(result)).toBe("Rolled 2d6!: [6!, 2, 6!, 3] = 17");
    expect(result.structuredContent).toMatchObject({ rolls: [6, 2, 6, 3], total: 17 });
  });

  it("supports arithmetic around dice, percentile and fudge dice", async () => {
    expect(resultText(await roll("2d6*2-1", scripted(...d(6, 3, 2))))).toBe(
      "Rolled 2d6*2-1: [3, 2] * 2 - 1 = 9",
    );
    expect(resultText(await roll("d%", scripted(...d(100, 42))))).toBe("Rolled d%: 42");
    // Fudge dice show -1, 0 or +1 (drawn as 1..3 minus 2).
    const fudge = await roll("4dF", scripted(...d(3, 1, 2, 3, 3)));
    expect(resultText(fudge)).toBe("Rolled 4dF: [-1, 0, 1, 1] = 1");
  });

  it("rolls within range with the default generator", async () => {
    const executor = executorWith();
    for (let i = 0; i < 50; i++) {
      const result = await executor.call("roll_dice", { notation: "3d6+1" });
      const total = (result.structuredContent as { total: number }).total;
      expect(total).toBeGreaterThanOrEqual(4);
      expect(total).toBeLessThanOrEqual(19);
    }
  });
});

describe("roll_dice limits and errors", () => {
  it.each([
    ["101d6", /101 dice: at most 100/],
    ["60d6+50d6", /110 dice: at most 100/],
    ["{60d6, 60d6}kh1", /120 dice: at most 100/],
    ["1d1001", /d1001 has too many sides: at most 1000/],
    ["2d100000", /too many sides/],
    ["999d6", /999 dice/],
    ["1000d6", /"1000d6": a roll takes 1 to 100 dice at once/],
  ])("refuses %s before rolling anything", async (notation, message) => {
    const neverCalled = () => {
      throw new Error("rolled despite the limit");
    };
    const result = await roll(notation, neverCalled);
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(message);
  });

  it("accepts the limits themselves", async () => {
    const result = await roll("100d1000");
    expect(result.isError).toBeFalsy();
    expect((result.structuredContent as { rolls: number[] }).rolls).toHaveLength(100);
  });

  it.each(["abc", "2d", "d", "2d6+", "1d0", "roll two dice", "2d6kh"])(
    "explains invalid notation %j with valid examples",
    async (notation) => {
      const result = await roll(notation);
      expect(result.isError).toBe(true);
      expect(resultText(result)).toMatch(/^Invalid dice notation/);
      expect(resultText(result)).toContain("2d6+3");
    },
  );

  it("refuses a die that would explode forever", async () => {
    const result = await roll("1d1!");
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/Cannot roll "1d1!"/);
  });

  it("validates the arguments", async () => {
    const result = await executorWith().call("roll_dice", { notation: 5 });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/notation.*must be a string/);
  });

  it("restores the library's generator after a scripted roll", async () => {
    await roll("1d6", scripted(...d(6, 6)));
    const totals = new Set<number>();
    const executor = executorWith();
    for (let i = 0; i < 60; i++) {
      const result = await executor.call("roll_dice", { notation: "1d6" });
      totals.add((result.structuredContent as { total: number }).total);
    }
    expect(totals.size).toBeGreaterThan(1);
  });
});
