import { readFileSync } from "node:fs";

/** The package's own version, read at run time so it never drifts from package.json. */
export function readPackageVersion(): string {
  const url = new URL("../../package.json", import.meta.url);
  try {
    return (JSON.parse(readFileSync(url, "utf8")) as { version?: string }).version ?? "0.0.0";
  } catch {
    return "0.0.0";
  }
}
