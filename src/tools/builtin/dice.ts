import type { CallToolResult } from "@modelcontextprotocol/server";
import { defineTool } from "../define-tool.js";
import { errorResult } from "../normalize-tool-result.js";
import type { ToolDefinition } from "../tool-definition.js";
import { MAX_DICE_PER_ROLL, MAX_DIE_SIDES, MAX_NOTATION_LENGTH } from "./dice-limits.js";

export { type DiceRollSummary, MAX_DICE_PER_ROLL, MAX_DIE_SIDES } from "./dice-limits.js";

export interface DiceToolOptions {
  /**
   * Random source returning a number in [0, 1), like Math.random; each die face is `floor(random() * sides) + 1`.
   * For deterministic tests. Default: the dice library's own generator.
   */
  random?: () => number;
}

export interface DiceArgs {
  notation: string;
}

const DESCRIPTION = [
  "Roll dice written in standard RPG dice notation and report every die and the total.",
  "NdS rolls N dice with S sides (1d20, 3d6); + - * / add modifiers (2d6+3); khN / klN keep the N highest / lowest",
  "(4d6kh3); dhN / dlN drop them (4d6dl1); ! makes dice explode (3d6!); d% is a percentile die; dF a fudge die.",
  `At most ${MAX_DICE_PER_ROLL} dice per roll and ${MAX_DIE_SIDES} sides per die.`,
  "Output: `Rolled 1d20: 17`, `Rolled 2d6+3: [4, 1] + 3 = 8`, `Rolled 4d6kh3: [6, 4, 3, 2] → kept [6, 4, 3] = 13`.",
].join(" ");

/** The dice library and the code on it, loaded once, at the first roll (see dice-roll.ts). */
let diceRoll: Promise<typeof import("./dice-roll.js")> | undefined;
function loadDiceRoll(): Promise<typeof import("./dice-roll.js")> {
  diceRoll ??= import("./dice-roll.js").catch((error: unknown) => {
    diceRoll = undefined; // a failed load is tried again at the next roll
    throw error;
  });
  return diceRoll;
}

/** The `roll_dice` tool. */
export function createDiceTool(options: DiceToolOptions = {}): ToolDefinition<DiceArgs> {
  return defineTool<DiceArgs>({
    name: "roll_dice",
    title: "Roll dice",
    description: DESCRIPTION,
    inputSchema: {
      type: "object",
      properties: {
        notation: {
          type: "string",
          minLength: 1,
          maxLength: MAX_NOTATION_LENGTH,
          description:
            'Dice notation, e.g. "1d20", "2d6+3", "4d6kh3" (keep highest 3), "4d6dl1", "3d6!" (exploding).',
        },
      },
      required: ["notation"],
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        notation: { type: "string" },
        rolls: { type: "array", items: { type: "number" }, description: "Every die rolled, in order." },
        kept: {
          type: "array",
          items: { type: "number" },
          description: "The dice that count towards the total.",
        },
        total: { type: "number" },
      },
      required: ["notation", "rolls", "kept", "total"],
    },
    // Not idempotent (every call rolls again) but changes nothing outside itself.
    annotations: { title: "Roll dice", readOnlyHint: true, openWorldHint: false, idempotentHint: false },
    category: "fun",
    handler: async ({ notation }): Promise<CallToolResult> => {
      const { rollDice, DiceLimitError } = await loadDiceRoll();
      try {
        const { text, summary } = rollDice(notation, options.random);
        return { content: [{ type: "text", text }], structuredContent: summary };
      } catch (error) {
        if (error instanceof DiceLimitError) return errorResult(error.message);
        throw error;
      }
    },
  });
}
