import { buildIfChanged } from "../scripts/build-if-changed.mjs";

/**
 * CLI tests run the built bin (`node dist/cli/main.js`), exactly what users run, and `serve` serves the built web UI.
 * `npm test` builds first; this makes a bare `npx vitest run test/…` work too by rebuilding what is older than its
 * sources (scripts/build-if-changed.mjs, which `npm start` uses too).
 */
export default function setup(): void {
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
