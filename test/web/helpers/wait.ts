import type { Locator } from "playwright-core";
import { waitFor } from "../../helpers/wait-for.js";

/** Poll `probe` until it returns something truthy (or throw with `what` after `timeoutMs`): waitFor, every 100 ms. */
export function until<T>(
  what: string,
  probe: () => T | Promise<T>,
  timeoutMs = 20_000,
): Promise<NonNullable<T>> {
  return waitFor(what, probe, timeoutMs, 100);
}

/** Wait until the locator's element carries `data-phase` = phase. */
export async function phaseOf(card: Locator, phase: string, timeoutMs = 30_000): Promise<boolean> {
  let seen: string | null | undefined;
  try {
    return await until(
      `phase ${phase}`,
      async () => {
        seen = await card.getAttribute("data-phase");
        return seen === phase;
      },
      timeoutMs,
    );
  } catch (error) {
    // Which phase it was stuck in (or no card at all) is what tells a missed event from a slow one.
    throw new Error(
      `${(error as Error).message} (the card's phase: ${seen === undefined ? "no card" : seen})`,
    );
  }
}

export async function json<T = unknown>(url: string, init?: RequestInit): Promise<T> {
  const response = await fetch(url, init);
  if (!response.ok)
    throw new Error(`${init?.method ?? "GET"} ${url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}
