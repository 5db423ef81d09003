import type { TestProject } from "vitest/node";
import { buildIfChanged } from "../scripts/build-if-changed.mjs";
import { type PostgresCluster, startPostgresCluster } from "./helpers/postgres-cluster.js";

declare module "vitest" {
  interface ProvidedContext {
    /** The shared test PostgreSQL server (see test/helpers/postgres.ts), or null when none could be started. */
    postgresUrl: string | null;
    /** Why there is none. */
    postgresMissing: string;
  }
}

/**
 * CLI tests run the built bin (`node dist/cli/main.js`), exactly what users run, and `serve` serves the built web UI.
 * `npm test` builds first; this makes a bare `npx vitest run test/…` work too by rebuilding what is older than its
 * sources (scripts/build-if-changed.mjs, which `npm start` uses too).
 */
export default async function setup(project: TestProject): Promise<() => void> {
  build();
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

function build(): void {
  try {
    buildIfChanged();
  } catch {
    // tsc still emits JavaScript when it finds type errors; those are reported by `npm run typecheck` (part of
    // `npm test`), so a type error in one file must not stop every other test from running.
    process.stderr.write(
      "global-setup: the build reported type errors (see `npm run typecheck`); continuing.\n",
    );
  }
}
