/** Show a requested path in a message: quoted, escaped and short. */
export function quotePath(requested: string): string {
  const shown =
    requested.length > 160 ? `${requested.slice(0, 100)}…(${requested.length} characters)` : requested;
  return JSON.stringify(shown);
}
