import { vi } from "vitest";

/**
 * Wait for something to happen, not for a time to pass: polls `probe` (sync or async) until it returns something
 * truthy, and resolves with that; after `timeoutMs`, throws naming `what` and the last value or error seen. One
 * helper on vitest's own `vi.waitFor`, for every test that waits on another process, a socket or a page.
 */
export function waitFor<T>(
  what: string,
  probe: () => T | Promise<T>,
  timeoutMs = 15_000,
  intervalMs = 25,
): Promise<NonNullable<T>> {
  let last: unknown;
  return vi
    .waitFor(
      async () => {
        const value = await probe();
        last = value;
        if (!value) throw new Error("not yet");
        return value as NonNullable<T>;
      },
      { timeout: timeoutMs, interval: intervalMs },
    )
    .catch((error: unknown) => {
      const seen =
        error instanceof Error && error.message !== "not yet" ? error.message : JSON.stringify(last);
      throw new Error(`timed out waiting for ${what}; last: ${seen}`);
    });
}
