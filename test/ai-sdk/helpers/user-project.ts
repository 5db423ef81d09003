import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { AI_SDK_MAJOR } from "./scripted-model.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));

export interface UserProject {
  /** The project's folder: put its sources here, and run them from here. */
  dir: string;
  remove(): void;
}

/**
 * A scratch project that sees toolbridge as an app that installed it does, with the `ai` under test: it sits inside
 * that major's `node_modules` (the project's own for 6, test/ai-sdk-v7's for 7), with `toolbridge` in its own
 * `node_modules` — the package.json and the built dist/, linked. Run with symlinks preserved (`node
 * --preserve-symlinks`, `tsc` with `preserveSymlinks`), every `ai` import, toolbridge's own included, resolves to that
 * major, and the rest of toolbridge's dependencies to the project's install above.
 */
export function createUserProject(name: string): UserProject {
  const dir = path.join(
    root,
    AI_SDK_MAJOR === 7 ? "test/ai-sdk-v7/node_modules" : "node_modules",
    `.${name}`,
  );
  rmSync(dir, { recursive: true, force: true });
  const pkg = path.join(dir, "node_modules/toolbridge");
  mkdirSync(pkg, { recursive: true });
  writeFileSync(
    path.join(dir, "package.json"),
    JSON.stringify({ name: name, private: true, type: "module" }),
  );
  const {
    name: packageName,
    type,
    exports,
  } = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
  writeFileSync(path.join(pkg, "package.json"), JSON.stringify({ name: packageName, type, exports }));
  symlinkSync(path.join(root, "dist"), path.join(pkg, "dist"), "dir");
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
