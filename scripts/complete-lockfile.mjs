#!/usr/bin/env node
/**
 * Adds lockfile entries for optional platform packages that this machine's npm registry mirror does not serve
 * (Windows/macOS/musl builds of @biomejs/cli-* and @node-llama-cpp/*). npm cannot record what it cannot fetch, and
 * `npm ci` then refuses the lock ("Missing: … from lock file"). Each entry carries the os/cpu/libc read from the
 * package name, so npm skips it on other platforms without fetching it.
 *
 * Run after any `npm install` that rewrites package-lock.json:  node scripts/complete-lockfile.mjs
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";

const LOCK = "package-lock.json";

function missingPackages() {
  try {
    execFileSync("npm", ["ci", "--dry-run", "--loglevel=error"], { stdio: "pipe", encoding: "utf8" });
    return [];
  } catch (error) {
    const out = `${error.stdout ?? ""}${error.stderr ?? ""}`;
    return [...out.matchAll(/Missing: (@?[^@\s]+)@\S* from lock file/g)].map((m) => m[1]);
  }
}

function platformOf(name) {
  const os = /android/.test(name)
    ? "android"
    : /darwin|mac/.test(name)
      ? "darwin"
      : /win/.test(name)
        ? "win32"
        : /linux/.test(name)
          ? "linux"
          : undefined;
  const cpu = /arm64/.test(name)
    ? "arm64"
    : /riscv64/.test(name)
      ? "riscv64"
      : /x64/.test(name)
        ? "x64"
        : undefined;
  const entry = {};
  if (os) entry.os = [os];
  if (cpu) entry.cpu = [cpu];
  if (/musl/.test(name)) entry.libc = ["musl"];
  return entry;
}

const lock = JSON.parse(readFileSync(LOCK, "utf8"));
const missing = missingPackages();
for (const name of missing) {
  const parent = Object.values(lock.packages).find((p) => p.optionalDependencies?.[name]);
  if (!parent) throw new Error(`no package lists ${name} as an optional dependency`);
  lock.packages[`node_modules/${name}`] = {
    version: parent.optionalDependencies[name].replace(/^[\^~=]/, ""),
    ...(parent.dev ? { dev: true } : {}),
    optional: true,
    ...platformOf(name),
  };
}
lock.packages = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a < b ? -1 : 1)),
);
writeFileSync(LOCK, `${JSON.stringify(lock, null, 2)}\n`);
const left = missingPackages();
process.stdout.write(
  `added ${missing.length} entries; npm ci ${left.length === 0 ? "accepts the lock" : `still misses: ${left.join(", ")}`}\n`,
);
if (left.length > 0) process.exit(1);
