import { randomBytes } from "node:crypto";

const ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/** Nine alphanumerics: the id shape Mistral templates insist on, so a history with our ids re-renders everywhere. */
export function generateCallId(): string {
  return Array.from(randomBytes(9), (b) => ALNUM[b % ALNUM.length]).join("");
}
