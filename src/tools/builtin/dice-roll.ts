import { Dice, DiceRoll, NumberGenerator, Parser, Results, RollGroup } from "@dice-roller/rpg-dice-roller";
import {
  type DiceRollSummary,
  EXAMPLES,
  MAX_DICE_PER_ROLL,
  MAX_DIE_SIDES,
  MAX_NOTATION_LENGTH,
} from "./dice-limits.js";

/**
 * The roll itself, on the dice library: loaded by the `roll_dice` tool at its first call, because the library brings
 * its own expression engine (about a thousand modules) that a program importing toolbridge should not pay for.
 */

export class DiceLimitError extends Error {
  override name = "DiceLimitError";
}

/** Count the dice a parsed notation would roll, and refuse oversized ones, before anything is rolled. */
function checkLimits(parsed: unknown[]): void {
  let dice = 0;
  const visit = (items: unknown[]): void => {
    for (const item of items) {
      if (item instanceof RollGroup) {
        for (const expression of item.expressions) visit(expression);
      } else if (item instanceof Dice.StandardDice) {
        dice += item.qty;
        if (typeof item.sides === "number" && item.sides > MAX_DIE_SIDES) {
          throw new DiceLimitError(
            `A d${item.sides} has too many sides: at most ${MAX_DIE_SIDES} are allowed (e.g. 1d${MAX_DIE_SIDES}).`,
          );
        }
      }
    }
  };
  visit(parsed);
  if (dice > MAX_DICE_PER_ROLL) {
    throw new DiceLimitError(
      `That is ${dice} dice: at most ${MAX_DICE_PER_ROLL} can be rolled at once (e.g. ${MAX_DICE_PER_ROLL}d6).`,
    );
  }
}

/** Explain a parser error briefly: where it went wrong, plus valid examples. */
function describeParseError(notation: string, error: unknown): string {
  const details = error as {
    found?: string | null;
    location?: { start?: { offset?: number } };
    message?: string;
  };
  // The parser's own bound (999 dice) is not ours: state the real limit.
  if (details.message && /qty must be between/.test(details.message)) {
    return `Invalid dice notation "${notation}": a roll takes 1 to ${MAX_DICE_PER_ROLL} dice at once (e.g. ${MAX_DICE_PER_ROLL}d6).`;
  }
  const offset = details.location?.start?.offset;
  let where = "";
  if (offset !== undefined) {
    where = details.found
      ? `: unexpected "${details.found}" at position ${offset + 1}`
      : ": it ends too early";
  } else if (details.message) {
    where = `: ${details.message}`;
  }
  return `Invalid dice notation "${notation}"${where}. ${EXAMPLES}`;
}

type RollItem = string | number | Results.RollResults | Results.ResultGroup;

function markValue(roll: Results.RollResult): string {
  if (roll.modifiers.has("compound")) return `${roll.value}!!`;
  if (roll.modifiers.has("explode")) return `${roll.value}!`;
  return String(roll.value);
}

const descending = (a: Results.RollResult, b: Results.RollResult) => b.value - a.value;

/** `[4, 1]`; with dropped dice `[6, 4, 3, 2] → kept [6, 4, 3]` (sorted high to low so the choice is visible). */
function formatGroup(group: Results.RollResults): string {
  const rolls = group.rolls;
  if (rolls.every((roll) => roll.useInTotal)) return `[${rolls.map(markValue).join(", ")}]`;
  const sorted = [...rolls].sort(descending);
  const kept = sorted.filter((roll) => roll.useInTotal);
  return `[${sorted.map(markValue).join(", ")}] → kept [${kept.map(markValue).join(", ")}]`;
}

const BINARY_OPERATORS = new Set(["+", "-", "*", "/", "%", "^", "**"]);

function formatItems(items: readonly RollItem[]): string {
  return items
    .map((item) => {
      if (item instanceof Results.RollResults) return formatGroup(item);
      if (item instanceof Results.ResultGroup) return `{${formatItems(item.results)}}`;
      if (typeof item === "string" && BINARY_OPERATORS.has(item)) return ` ${item} `;
      return String(item);
    })
    .join("");
}

function collect(items: readonly RollItem[], all: number[], kept: number[], groupKept = true): void {
  for (const item of items) {
    if (item instanceof Results.RollResults) {
      for (const roll of item.rolls) {
        all.push(roll.value);
        if (roll.useInTotal && groupKept) kept.push(roll.value);
      }
    } else if (item instanceof Results.ResultGroup) {
      collect(item.results, all, kept, groupKept && item.useInTotal);
    }
  }
}

/** The text of a roll; one consistent family of formats, documented in the tool description. */
export function formatDiceRoll(roll: DiceRoll): string {
  const items = roll.rolls as RollItem[];
  const only = items[0];
  const single =
    items.length === 1 &&
    only instanceof Results.RollResults &&
    only.rolls.length === 1 &&
    only.rolls[0]?.useInTotal === true &&
    only.rolls[0].modifiers.size === 0;
  // One plain die: the value is the total, nothing to add.
  if (single) return `Rolled ${roll.notation}: ${roll.total}`;
  return `Rolled ${roll.notation}: ${formatItems(items)} = ${roll.total}`;
}

/** Run `roll` with the library's (global) number generator temporarily driven by `random`. */
function withRandom<T>(random: (() => number) | undefined, roll: () => T): T {
  if (!random) return roll();
  const generator = NumberGenerator.generator;
  const previous = generator.engine;
  // The library sets `range` to [min, max] before each draw; random-js maps a draw of `k` (< range size) to min + k.
  const engine = {
    range: [1, 1] as number[],
    next(): number {
      const [min = 1, max = 1] = this.range;
      const size = max - min + 1;
      return Math.min(size - 1, Math.max(0, Math.floor(random() * size)));
    },
  };
  generator.engine = engine;
  try {
    return roll();
  } finally {
    generator.engine = previous;
  }
}

/** Roll a notation: limits are checked first, then the dice are rolled. Throws with a message a model can act on. */
export function rollDice(
  notation: string,
  random?: () => number,
): { text: string; summary: DiceRollSummary } {
  const trimmed = notation.trim();
  if (trimmed === "") throw new DiceLimitError(`The notation is empty. ${EXAMPLES}`);
  if (trimmed.length > MAX_NOTATION_LENGTH) {
    throw new DiceLimitError(`The notation is longer than ${MAX_NOTATION_LENGTH} characters. ${EXAMPLES}`);
  }
  let parsed: unknown[];
  try {
    parsed = Parser.parse(trimmed);
  } catch (error) {
    throw new DiceLimitError(describeParseError(trimmed, error));
  }
  checkLimits(parsed);
  let roll: DiceRoll;
  try {
    roll = withRandom(random, () => new DiceRoll(trimmed));
  } catch (error) {
    // Semantic errors the grammar lets through, e.g. a die that would explode forever (1d1!).
    throw new DiceLimitError(`Cannot roll "${trimmed}": ${(error as Error).message}. ${EXAMPLES}`);
  }
  const rolls: number[] = [];
  const kept: number[] = [];
  collect(roll.rolls as RollItem[], rolls, kept);
  return { text: formatDiceRoll(roll), summary: { notation: roll.notation, rolls, kept, total: roll.total } };
}
