import path from "node:path";

/** The flags a hint must repeat so that the printed command finds the same database and config when pasted. */
export interface HintContext {
  /** `--db` as the user gave it; repeated as an absolute path (the hint may be pasted in another folder). */
  db?: string | undefined;
  /** `--config` as the user gave it; only commands that take `--config` repeat it. */
  config?: string | undefined;
}

/** Quote an argument for a POSIX shell only when it needs it, so the usual hint stays readable. */
export function shellQuote(arg: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(arg)) return arg;
  return `'${arg.replaceAll("'", `'\\''`)}'`;
}

/**
 * A `toolbridge …` command line to print as advice: `args`, then `--db` (and `--config` when `withConfig`), so that
 * pasting it as is works.
 */
export function commandHint(
  args: readonly string[],
  context: HintContext,
  options: { withConfig?: boolean } = {},
): string {
  const all = ["toolbridge", ...args];
  if (context.db !== undefined) all.push("--db", path.resolve(context.db));
  if (options.withConfig && context.config !== undefined) all.push("--config", path.resolve(context.config));
  return all.map(shellQuote).join(" ");
}
