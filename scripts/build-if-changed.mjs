/**
 * Builds what is older than its sources, and nothing else: the package (tsc, when a file of src/ is newer than
 * dist/cli/main.js) and the web UI (Vite, when a file of web/ is newer than dist/web/index.html). `npm start` runs it
 * before the chat, so an unchanged checkout starts at once; the test run's global setup runs it too
 * (test/global-setup.ts). `node scripts/build-if-changed.mjs` prints what it built.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** The newest modification time of the files under `dir` whose name matches `pattern` (0 for none). */
export function newestMtime(dir, pattern) {
  if (!existsSync(dir)) return 0;
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "node_modules") newest = Math.max(newest, newestMtime(full, pattern));
    } else if (pattern.test(entry.name)) newest = Math.max(newest, statSync(full).mtimeMs);
  }
  return newest;
}

/** Whether `output` is missing or older than the newest source under `sourceDir`. */
function stale(output, sourceDir, pattern) {
  return !existsSync(output) || statSync(output).mtimeMs < newestMtime(sourceDir, pattern);
}

const node = (root, args, env = process.env) =>
  execFileSync(process.execPath, args, { cwd: root, stdio: ["ignore", "ignore", "inherit"], env });

/** The two builds, as `npm run build` runs them. */
export const BUILDS = {
  package: (root) =>
    node(root, [path.join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"]),
  // NODE_ENV=production: under a test runner (NODE_ENV=test) Vite would bundle React's development build.
  web: (root) =>
    node(
      root,
      [
        path.join(root, "node_modules/vite/bin/vite.js"),
        "build",
        "--config",
        "web/vite.config.ts",
        "--logLevel",
        "error",
      ],
      { ...process.env, NODE_ENV: "production" },
    ),
};

/**
 * Runs the builds whose output is stale; returns their names ([] when everything was up to date). A failed package
 * build throws — tsc still emits JavaScript when it finds type errors, so a caller may choose to go on.
 */
export function buildIfChanged(root = ROOT, builds = BUILDS) {
  const built = [];
  if (stale(path.join(root, "dist/web/index.html"), path.join(root, "web"), /\.(tsx?|css|html|svg)$/)) {
    builds.web(root);
    built.push("web");
  }
  if (stale(path.join(root, "dist/cli/main.js"), path.join(root, "src"), /\.ts$/)) {
    built.push("package");
    builds.package(root);
  }
  return built;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  try {
    const built = buildIfChanged();
    if (built.length > 0) process.stderr.write(`Built ${built.join(" and ")} (sources changed).\n`);
  } catch {
    process.stderr.write("The build failed (see above); `npm run typecheck` says where.\n");
    process.exitCode = 1;
  }
}
