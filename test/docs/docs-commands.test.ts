/**
 * The command lines the README and docs/ show but cannot run as written (they name a model file, a server, a
 * placeholder): every `toolbridge <command>` they write exists, with every `--flag` written on its line in that
 * command's `--help` (or a subcommand's), and every `npm run <script>` is a script of package.json. A renamed flag or
 * command fails here, not in a reader's terminal.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Command } from "commander";
import { describe, expect, it, vi } from "vitest";

// The CLI's modules load once (a cold import of all its commands takes seconds on a loaded machine).
vi.setConfig({ testTimeout: 120_000 });

const root = fileURLToPath(new URL("../../", import.meta.url));
const files = [
  "README.md",
  ...readdirSync(path.join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];
const texts = files.map((file) => ({ file, text: readFileSync(path.join(root, file), "utf8") }));
/** The lines of the shell (or untagged) code blocks, read fence by fence. */
const codeLines = texts.flatMap(({ file, text }) => {
  const lines: { file: string; line: string }[] = [];
  let fence: string | undefined;
  for (const line of text.split("\n")) {
    if (line.startsWith("```")) fence = fence === undefined ? line.slice(3).trim() : undefined;
    else if (fence === "sh" || fence === "") lines.push({ file, line });
  }
  return lines;
});

/** `toolbridge …` lines: the command (one word, or two for a command with subcommands) and the flags written. */
const invocations = codeLines
  .map(({ file, line }) => ({
    file,
    line,
    match: /^\s*toolbridge\s+([a-z]+)(?:\s+([a-z]+))?(.*)$/.exec(line),
  }))
  .filter((entry) => entry.match)
  .map(({ file, line, match }) => ({
    file,
    line,
    command: match?.[1] as string,
    sub: match?.[2],
    flags: [...line.replace(/#.*$/, "").matchAll(/(?<![\w-])(--[a-z][a-z-]*)/g)].map((m) => m[1] as string),
  }));

const helpCache = new Map<string, string>();
/** `toolbridge <args> --help` (empty when there is no such command), from the program readHelps built. */
function help(args: string[]): string {
  return helpCache.get(args.join(" ")) ?? "";
}

/**
 * The help text of every command and subcommand, as `--help` prints it: the built CLI's commands registered on one
 * program (as dist/cli/main.js does), in this process — a `--help` process per command costs seconds each.
 */
async function readHelps(): Promise<void> {
  const program = new Command().name("toolbridge");
  const dir = path.join(root, "dist", "cli", "commands");
  for (const file of readdirSync(dir).filter((name) => name.endsWith(".js"))) {
    const module = (await import(pathToFileURL(path.join(dir, file)).href)) as Record<string, unknown>;
    for (const [name, value] of Object.entries(module))
      if (/^register\w*Command$/.test(name) && typeof value === "function") value(program);
  }
  for (const command of program.commands) {
    helpCache.set(command.name(), command.helpInformation());
    for (const sub of command.commands)
      helpCache.set(`${command.name()} ${sub.name()}`, sub.helpInformation());
  }
}

/**
 * Whether `toolbridge <command>` (a subcommand's, when the line names one and no alternatives) takes `flag`: its own
 * help first, then each subcommand's (`runs list | show | approve …` lines name several), read only when needed.
 */
function takesFlag(command: string, sub: string | undefined, line: string, flag: string): boolean {
  const negated = flag.replace(/^--no-/, "--");
  const mentions = (text: string) =>
    [`${flag} `, `${flag},`, `${flag}\n`, `--[no-]${negated.slice(2)}`].some((form) => text.includes(form)) ||
    (flag.startsWith("--no-") && text.includes(`${negated} `));
  const main = help([command]);
  const subs = [...main.matchAll(/^ {2}([a-z]+)(?= |$)/gm)]
    .map((m) => m[1] as string)
    .filter((s) => s !== "help");
  if (sub && subs.includes(sub) && !line.includes("|")) return mentions(help([command, sub]));
  return mentions(main) || subs.some((s) => mentions(help([command, s])));
}

describe("the command lines of the README and docs/", () => {
  it("finds them", () => {
    const commands = new Set(invocations.map((i) => i.command));
    for (const command of ["chat", "run", "tools", "runs", "parse", "mcp", "serve"])
      expect(commands).toContain(command);
  });

  it("name commands toolbridge has, with flags those commands take", async () => {
    await readHelps();
    const wrong: string[] = [];
    for (const { file, line, command, sub, flags } of invocations) {
      if (!help([command])) {
        wrong.push(`${file}: no command \`toolbridge ${command}\`: ${line.trim()}`);
        continue;
      }
      for (const flag of flags)
        if (!takesFlag(command, sub, line, flag))
          wrong.push(`${file}: \`toolbridge ${command}\` has no ${flag}: ${line.trim()}`);
    }
    expect(wrong).toEqual([]);
  });

  it("run npm scripts package.json has", () => {
    const scripts = Object.keys(
      JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")).scripts as Record<string, string>,
    );
    const named = texts.flatMap(({ file, text }) =>
      [...text.matchAll(/npm run ([a-z][\w:-]*)/g)].map((m) => ({ file, script: m[1] as string })),
    );
    expect(named.length).toBeGreaterThan(10);
    expect(named.filter(({ script }) => !scripts.includes(script))).toEqual([]);
  });
});
