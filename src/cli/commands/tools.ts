import type { Command } from "commander";
import pc from "picocolors";
import { resultText } from "../../tools/normalize-tool-result.js";
import { CliError, parseJsonOption, runCommand } from "../cli-error.js";
import { createToolsRuntime } from "../tools-runtime.js";

interface ListOptions {
  json?: boolean;
  db?: string;
  config?: string;
  category?: string;
}

interface CallOptions {
  args?: string;
  db?: string;
  json?: boolean;
  config?: string;
  user?: string;
  dryRun?: boolean;
}

function firstLine(text: string | undefined): string {
  return (text ?? "").split("\n")[0] ?? "";
}

export function registerToolsCommand(program: Command): void {
  const tools = program.command("tools").description("list and call the configured tools");

  tools
    .command("list")
    .description("list the available tools (built-in, configured and mounted MCP servers)")
    .option("--json", 'print the MCP objects: {"tools": [...]}')
    .option("--category <name>", "only tools of this category")
    .option("-c, --config <file>", "config file (default: ./toolbridge.config.json when present)")
    .option("--db <file>", "database for the memory tools (default: the user data folder)")
    .action((options: ListOptions) =>
      runCommand(async () => {
        const runtime = await createToolsRuntime({
          ...(options.config ? { configPath: options.config } : {}),
          db: options.db,
        });
        try {
          const all = runtime.registry.definitions();
          const categories = [...new Set(all.map((d) => d.category))].sort();
          if (options.category !== undefined && !categories.includes(options.category)) {
            throw new CliError(
              `--category "${options.category}" is not a category of the available tools; the categories are: ${categories.join(", ")}.`,
            );
          }
          const definitions = all.filter(
            (d) => options.category === undefined || d.category === options.category,
          );
          if (options.json) {
            process.stdout.write(`${JSON.stringify({ tools: definitions.map((d) => d.tool) }, null, 2)}\n`);
            return 0;
          }
          if (definitions.length === 0) {
            process.stdout.write("No tools available.\n");
            return 0;
          }
          const width = Math.min(32, Math.max(...definitions.map((d) => d.tool.name.length)));
          for (const category of [...new Set(definitions.map((d) => d.category))].sort()) {
            process.stdout.write(`${pc.bold(category)}\n`);
            for (const d of definitions.filter((x) => x.category === category)) {
              const flag = d.requiresApproval ? pc.yellow(" [approval]") : "";
              process.stdout.write(
                `  ${pc.cyan(d.tool.name.padEnd(width))}  ${firstLine(d.tool.description)}${flag}\n`,
              );
            }
          }
          return 0;
        } finally {
          await runtime.close();
        }
      }),
    );

  tools
    .command("call <name>")
    .description("call a tool once; exit code 0 ok, 1 the tool reported an error, 2 usage or invalid input")
    .option("-a, --args <json>", "arguments as a JSON object", "{}")
    .option("--json", "print the MCP CallToolResult")
    .option("--user <id>", "user id for cooldowns and rate limits")
    .option("--dry-run", "describe what a tool with side effects would do instead of running it")
    .option("-c, --config <file>", "config file (default: ./toolbridge.config.json when present)")
    .option("--db <file>", "database for the memory tools (default: the user data folder)")
    .action((name: string, options: CallOptions) =>
      runCommand(async () => {
        const args = parseJsonOption(options.args ?? "{}", "--args");
        if (args === null || typeof args !== "object" || Array.isArray(args)) {
          throw new CliError('--args must be a JSON object, e.g. --args \'{"expression": "2+2"}\'');
        }
        const runtime = await createToolsRuntime({
          ...(options.config ? { configPath: options.config } : {}),
          db: options.db,
        });
        try {
          const outcome = await runtime.executor.execute(
            { name, arguments: args },
            {
              ...(options.user ? { userId: options.user } : {}),
              ...(options.dryRun ? { dryRun: true } : {}),
            },
          );
          if (outcome.status === "invalid-input") {
            process.stderr.write(`toolbridge: ${resultText(outcome.result)}\n`);
            return 2;
          }
          if (options.json) process.stdout.write(`${JSON.stringify(outcome.result, null, 2)}\n`);
          else {
            const text = resultText(outcome.result);
            (outcome.result.isError ? process.stderr : process.stdout).write(
              text.endsWith("\n") ? text : `${text}\n`,
            );
          }
          return outcome.result.isError ? 1 : 0;
        } finally {
          await runtime.close();
        }
      }),
    );
}
