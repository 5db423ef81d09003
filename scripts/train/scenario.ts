/**
 * A training conversation written as a scenario: a function that says what the user types, which calls the assistant
 * makes (run by the real tools, so results are real) and what it answers, turn by turn — a follow-up can use an
 * earlier result, an answer can quote an error. build-dataset.ts runs scenarios and renders them exactly as the
 * runtime does.
 */
import type { Tool } from "@modelcontextprotocol/server";

export type Rng = () => number;

/** The scenario mixes a generation was trained on (4: generation 4's data byte for byte; 5 to 8 add to it). */
export type Mix = 4 | 5 | 6 | 7 | 8;
export const MIXES: readonly Mix[] = [4, 5, 6, 7, 8];
export const NEWEST_MIX: Mix = 8;

export interface CallOutcome {
  /** The result as the model reads it (an error's text too). */
  text: string;
  isError: boolean;
}

export interface ScenarioContext {
  rng: Rng;
  /** The generation whose data this is (build-dataset.ts's `mix`): what a later generation added is drawn from its own on. */
  mix: Mix;
  /** The dataset's clock for this conversation (ms since the epoch): what get_time and "now" read. */
  now: number;
  /** A note in memory before the conversation starts. */
  note(title: string, content: string): Promise<void>;
  /** Offer these tools instead of the built-in ones (a `/v1` client's own tools), with results made up by `fake`. */
  offer(tools: Tool[]): void;
  user(text: string): void;
  /** A call to a built-in tool, run for real. */
  call(name: string, args: Record<string, unknown>): Promise<CallOutcome>;
  /** A call to an offered client tool, with the result the client sends back. */
  fake(name: string, args: Record<string, unknown>, result: string): CallOutcome;
  answer(text: string): void;
}

export type Scenario = (ctx: ScenarioContext) => Promise<void>;

export const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)] as T;
export const int = (rng: Rng, lo: number, hi: number) => lo + Math.floor(rng() * (hi - lo + 1));
export const chance = (rng: Rng, p: number) => rng() < p;

/** Weighted choice: [weight, value] pairs. */
export function weighted<T>(rng: Rng, items: readonly (readonly [number, T])[]): T {
  const total = items.reduce((a, [w]) => a + w, 0);
  let u = rng() * total;
  for (const [w, v] of items) {
    if (u < w) return v;
    u -= w;
  }
  return (items.at(-1) as readonly [number, T])[1];
}
