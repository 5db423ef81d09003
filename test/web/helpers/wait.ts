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
export function phaseOf(card: Locator, phase: string, timeoutMs = 30_000): Promise<boolean> {
  return until(`phase ${phase}`, async () => (await card.getAttribute("data-phase")) === phase, timeoutMs);
}

export async function json<T = unknown>(url: string, init?: RequestInit): Promise<T> {
  const response = await fetch(url, init);
  if (!response.ok)
    throw new Error(`${init?.method ?? "GET"} ${url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}
