/**
 * Acceptance (issue 15 item 1): confinement holds under a concurrent attacker. A helper process swaps a directory
 * inside the root with a symlink to an outside directory as fast as it can (renameat2 RENAME_EXCHANGE), while every
 * filesystem tool is called in a loop. Outside files carry a marker; after every call the outside tree is compared
 * with its snapshot (and restored if it changed, so each leak is counted once). Expected: 0 leaks of every kind.
 *
 * TOOLBRIDGE_RACE_SECONDS sets the time per tool (default 2; the long run uses 60).
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  closeSync,
  constants,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFilesystemTools } from "../src/tools/builtin/filesystem.js";
import { resultText } from "../src/tools/normalize-tool-result.js";
import { ToolExecutor } from "../src/tools/tool-executor.js";
import { ToolRegistry } from "../src/tools/tool-registry.js";

const SECONDS = Number(process.env.TOOLBRIDGE_RACE_SECONDS ?? "2");
const MARKER = "OUTSIDE-MARKER-7d1f0a";
const OUTSIDE_ONLY_NAME = "outside-only-name-4b9e";
// Distinct sizes, so file_info (which returns no content) shows whose file it described.
const OUTSIDE_TEXT = `${MARKER} a\n${"x".repeat(93)}\n`;
const INSIDE_TEXT = "inside a\n";

const SWAPPER = `
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
a, b = os.fsencode(sys.argv[1]), os.fsencode(sys.argv[2])
AT_FDCWD, RENAME_EXCHANGE = -100, 2
if hasattr(libc, "renameat2"):
    swap = lambda: libc.renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE)
else:
    number = {"x86_64": 316, "aarch64": 276}[os.uname().machine]
    swap = lambda: libc.syscall(number, AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE)
if swap() != 0:
    sys.stderr.write("renameat2 failed: errno %d\\n" % ctypes.get_errno())
    sys.exit(3)
sys.stdout.write("ready\\n")
sys.stdout.flush()
while True:
    swap()
`;

const python = ["python3", "python"].find(
  (command) => spawnSync(command, ["-c", "import ctypes"], { stdio: "ignore" }).status === 0,
);
const skipReason =
  process.platform !== "linux"
    ? "the race helper needs Linux renameat2"
    : python === undefined
      ? "no python3 with ctypes to run the race helper"
      : undefined;

let base: string;
let root: string;
let outside: string;
let realDirFd: number;
let swapper: ChildProcess | undefined;
let executor: ToolExecutor;
let outsideBefore: string;
let helperFailure: string | undefined;

/** Names, types and content hashes of everything under `directory`. */
function fingerprint(directory: string): string {
  const lines: string[] = [];
  const visit = (at: string, prefix: string) => {
    for (const name of readdirSync(at).sort()) {
      const full = path.join(at, name);
      const stats = lstatSync(full);
      if (stats.isDirectory()) {
        lines.push(`${prefix}${name}/`);
        visit(full, `${prefix}${name}/`);
      } else {
        lines.push(`${prefix}${name} ${createHash("sha256").update(readFileSync(full)).digest("hex")}`);
      }
    }
  };
  visit(directory, "");
  return lines.join("\n");
}

function populateOutside(): void {
  rmSync(outside, { recursive: true, force: true });
  mkdirSync(path.join(outside, "sub"), { recursive: true });
  writeFileSync(path.join(outside, "f.txt"), OUTSIDE_TEXT);
  writeFileSync(path.join(outside, "victim.txt"), `${MARKER} victim\n`);
  writeFileSync(path.join(outside, `${OUTSIDE_ONLY_NAME}.txt`), `${MARKER} only\n`);
  writeFileSync(path.join(outside, "sub", "g.txt"), `${MARKER} nested\n`);
}

/** The real directory moves between root/d and root/link; write into it through a descriptor held on it. */
function inReal(name: string): string {
  return `/proc/self/fd/${realDirFd}/${name}`;
}

function populateInside(): void {
  writeFileSync(inReal("f.txt"), INSIDE_TEXT);
  writeFileSync(inReal("victim.txt"), "inside victim\n");
  mkdirSync(inReal("sub"), { recursive: true });
  writeFileSync(inReal("sub/g.txt"), "inside nested\n");
}

beforeAll(async () => {
  if (skipReason) return;
  base = mkdtempSync(path.join(tmpdir(), "tb-race-"));
  root = path.join(base, "root");
  outside = path.join(base, "outside");
  mkdirSync(path.join(root, "d"), { recursive: true });
  populateOutside();
  symlinkSync(outside, path.join(root, "link"));
  realDirFd = openSync(path.join(root, "d"), constants.O_RDONLY | constants.O_DIRECTORY);
  populateInside();
  outsideBefore = fingerprint(outside);

  const registry = new ToolRegistry();
  registry.registerAll(createFilesystemTools({ roots: [root], allowWrites: true }));
  executor = new ToolExecutor(registry, { redact: false });

  swapper = spawn(python!, ["-c", SWAPPER, path.join(root, "d"), path.join(root, "link")], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  // A filesystem without RENAME_EXCHANGE (the helper exits 3) skips the race with that reason instead of failing.
  helperFailure = await new Promise<string | undefined>((resolve) => {
    swapper!.stdout!.once("data", () => resolve(undefined));
    swapper!.once("exit", (code) => resolve(`the race helper could not swap (exit ${code}), see stderr`));
  });
});

// The long run leaves tens of thousands of entries behind; removing them on a busy disk can outlast the default.
afterAll(async () => {
  if (swapper && swapper.exitCode === null) {
    const exited = new Promise((resolve) => swapper!.once("exit", resolve));
    swapper.kill("SIGKILL");
    await exited;
  }
  if (realDirFd !== undefined) closeSync(realDirFd);
  const started = Date.now();
  if (base) await rm(base, { recursive: true, force: true });
  console.log(`filesystem-race: removed the test tree in ${Date.now() - started} ms`);
}, 600_000);

interface Counts {
  calls: number;
  succeeded: number;
  leaks: number;
}

type Check = (text: string, result: { isError?: boolean; structuredContent?: unknown }) => boolean;

const readLeak: Check = (text) => text.includes(MARKER) || text.includes(OUTSIDE_ONLY_NAME);

/** Call one tool for SECONDS; count results that show outside content or names, and calls that changed outside. */
async function hammer(tool: string, args: (i: number) => Record<string, unknown>, leaked = readLeak) {
  const counts: Counts = { calls: 0, succeeded: 0, leaks: 0 };
  const until = Date.now() + SECONDS * 1000;
  for (let i = 0; Date.now() < until; i++) {
    const result = await executor.call(tool, args(i));
    counts.calls += 1;
    if (!result.isError) counts.succeeded += 1;
    let leak = leaked(resultText(result), result);
    if (fingerprint(outside) !== outsideBefore) {
      leak = true;
      populateOutside();
    }
    if (leak) counts.leaks += 1;
    // Keep the inside files there for the next call (moves and deletes take them away).
    if (!existsSync(inReal("victim.txt"))) writeFileSync(inReal("victim.txt"), "inside victim\n");
    if (readFileSync(inReal("f.txt"), "utf8") !== INSIDE_TEXT) writeFileSync(inReal("f.txt"), INSIDE_TEXT);
  }
  console.log(
    `filesystem-race ${tool}: ${counts.calls} calls (${counts.succeeded} succeeded) in ${SECONDS} s, ${counts.leaks} outside`,
  );
  return counts;
}

describe.skipIf(skipReason !== undefined)("filesystem tools against a concurrent symlink swap", () => {
  const timeout = (SECONDS * 1000 + 10_000) * 2;
  const raceIt = (name: string, body: () => Promise<void>) =>
    it(name, { timeout }, async (context) => {
      if (helperFailure) return context.skip(helperFailure);
      await body();
    });

  raceIt("list_directory never lists outside names", async () => {
    expect((await hammer("list_directory", () => ({ path: "d" }))).leaks).toBe(0);
  });

  raceIt("read_file never returns outside content", async () => {
    const counts = await hammer("read_file", (i) => ({ path: i % 2 ? "d/f.txt" : "d/sub/g.txt" }));
    expect(counts.leaks).toBe(0);
    expect(counts.succeeded).toBeGreaterThan(0);
  });

  raceIt("search_files never shows outside names or content", async () => {
    const counts = await hammer("search_files", (i) =>
      i % 2 ? { path: "d", contains: "a" } : { pattern: "**", maxDepth: 5 },
    );
    expect(counts.leaks).toBe(0);
  });

  raceIt("file_info never describes an outside file", async () => {
    const outsideSize = Buffer.byteLength(OUTSIDE_TEXT);
    const counts = await hammer(
      "file_info",
      () => ({ path: "d/f.txt" }),
      (text) => text.includes(`"size": ${outsideSize}`) || text.includes(`"size":${outsideSize}`),
    );
    expect(counts.leaks).toBe(0);
  });

  raceIt("write_file never creates or changes anything outside", async () => {
    const counts = await hammer("write_file", (i) => ({
      path: i % 3 === 0 ? `d/new-${i}.txt` : i % 3 === 1 ? "d/f.txt" : `d/made-${i}/deeper.txt`,
      content: `written ${i}\n`,
    }));
    expect(counts.leaks).toBe(0);
  });

  raceIt("edit_file never changes an outside file", async () => {
    const counts = await hammer("edit_file", () => ({
      path: "d/f.txt",
      edits: [{ oldText: "a\n", newText: "b\n" }],
    }));
    expect(counts.leaks).toBe(0);
  });

  raceIt("move_file never moves anything out of or into the outside directory", async () => {
    const counts = await hammer("move_file", (i) => {
      if (i % 2) return { source: "d/victim.txt", destination: `pulled-${i}.txt` };
      writeFileSync(path.join(root, `push-${i}.txt`), "pushed\n");
      return { source: `push-${i}.txt`, destination: `d/pushed-${i}.txt` };
    });
    expect(counts.leaks).toBe(0);
  });

  raceIt("delete_file never deletes outside", async () => {
    const counts = await hammer("delete_file", () => ({ path: "d/victim.txt" }));
    expect(counts.leaks).toBe(0);
  });

  it("left the outside directory as it was", () => {
    expect(fingerprint(outside)).toBe(outsideBefore);
  });
});

if (skipReason) {
  describe("filesystem race test", () => {
    it.skip(`skipped: ${skipReason}`, () => {});
  });
}
