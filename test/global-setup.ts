import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";
import { type PostgresCluster, startPostgresCluster } from "./helpers/postgres-cluster.js";

declare module "vitest" {
  interface ProvidedContext {
    /** The shared test PostgreSQL server (see test/helpers/postgres.ts), or null when none could be started. */
    postgresUrl: string | null;
    /** Why there is none. */
    postgresMissing: string;
  }
}

const root = fileURLToPath(new URL("../", import.meta.url));

function newestMtime(dir: string, pattern = /\.ts$/): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(full, pattern));
    else if (pattern.test(entry.name)) newest = Math.max(newest, statSync(full).mtimeMs);
  }
  return newest;
}

/** The web UI (`dist/web`, what `serve` serves at /): rebuilt by Vite when a file of `web/` is newer. */
function buildWebUi(): void {
  const index = path.join(root, "dist/web/index.html");
  if (
    existsSync(index) &&
    statSync(index).mtimeMs >= newestMtime(path.join(root, "web"), /\.(tsx?|css|html|svg)$/)
  )
    return;
  execFileSync(
    process.execPath,
    [
      path.join(root, "node_modules/vite/bin/vite.js"),
      "build",
      "--config",
      "web/vite.config.ts",
      "--logLevel",
      "error",
    ],
    // Vitest sets NODE_ENV=test, which would make Vite bundle React's development build.
    { cwd: root, stdio: ["ignore", "ignore", "inherit"], env: { ...process.env, NODE_ENV: "production" } },
  );
}

/**
 * CLI tests run the built bin (`node dist/cli/main.js`), exactly what users run. `npm test` builds first; this makes
 * a bare `npx vitest run test/…` work too by rebuilding when any source is newer than the build (the web UI too).
 */
export default async function setup(project: TestProject): Promise<() => void> {
  buildWebUi();
  buildIfStale();
  // One PostgreSQL for every test file that needs one (each makes its own databases on it): started here, unless
  // TOOLBRIDGE_TEST_PG_URL names a server to use instead.
  let cluster: PostgresCluster | undefined;
  const given = process.env.TOOLBRIDGE_TEST_PG_URL;
  if (given) {
    project.provide("postgresUrl", given);
    project.provide("postgresMissing", "");
  } else {
    try {
      cluster = await startPostgresCluster();
      project.provide("postgresUrl", cluster.url);
      project.provide("postgresMissing", "");
    } catch (error) {
      // CI (.ci/run) installs PostgreSQL: there, a server that does not start is a failure, not a reason to skip.
      if (process.env.TOOLBRIDGE_TEST_REQUIRE_PG === "1") throw error;
      project.provide("postgresUrl", null);
      project.provide("postgresMissing", (error as Error).message);
      process.stderr.write(
        `global-setup: no PostgreSQL for the tests that need one (they are skipped): ${(error as Error).message}\n`,
      );
    }
  }
  return () => cluster?.destroy();
}

function buildIfStale(): void {
  const main = path.join(root, "dist/cli/main.js");
  if (existsSync(main) && statSync(main).mtimeMs >= newestMtime(path.join(root, "src"))) return;
  try {
    execFileSync(
      process.execPath,
      [path.join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"],
      {
        cwd: root,
        stdio: ["ignore", "ignore", "inherit"],
      },
    );
  } catch {
    // tsc still emits JavaScript when it finds type errors; those are reported by `npm run typecheck` (part of
    // `npm test`), so a type error in one file must not stop every other test from running.
    process.stderr.write(
      "global-setup: the build reported type errors (see `npm run typecheck`); continuing.\n",
    );
  }
}
