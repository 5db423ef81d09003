/** What a roll may ask for and what it answers: shared by the tool's description and the roll (dice-roll.ts). */
export const MAX_DICE_PER_ROLL = 100;
export const MAX_DIE_SIDES = 1000;
export const MAX_NOTATION_LENGTH = 100;

export interface DiceRollSummary {
  [key: string]: unknown;
  notation: string;
  /** Every die rolled, in order (exploded extra dice included). */
  rolls: number[];
  /** The dice that count towards the total (after keep/drop). */
  kept: number[];
  total: number;
}

export const EXAMPLES = "Valid notation looks like 1d20, 2d6+3, 4d6kh3, 4d6dl1, 3d6!, d%, 4dF.";
