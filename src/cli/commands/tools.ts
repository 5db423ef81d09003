import type { Command } from "commander";
import pc from "picocolors";
import type { ToolSettings } from "../../server/tools-api/tool-settings.js";
import { type ToolSource, toolSourceOf } from "../../server/tools-api/tool-source.js";
import { CallGate } from "../../tools/call-gate.js";
import { resultText } from "../../tools/normalize-tool-result.js";
import type { AnyToolDefinition } from "../../tools/tool-definition.js";
import { ToolIndex } from "../../tools/tool-index.js";
import { CliError, parseJsonOption, runCommand } from "../cli-error.js";
import { loadToolsModule } from "../tools-module.js";
import { createToolsRuntime } from "../tools-runtime.js";

interface ListOptions {
  json?: boolean;
  db?: string;
  config?: string;
  category?: string;
  toolsModule?: string;
}

interface SearchOptions {
  limit?: string;
  json?: boolean;
  config?: string;
  db?: string;
}

interface CallOptions {
  args?: string;
  db?: string;
  json?: boolean;
  config?: string;
  user?: string;
  dryRun?: boolean;
  toolsModule?: string;
}

function firstLine(text: string | undefined): string {
  return (text ?? "").split("\n")[0] ?? "";
}

/** The tools offered, by category (their policy flagged), then those switched off through the server. */
function printToolList(
  definitions: readonly AnyToolDefinition[],
  settings: ToolSettings,
  status: (d: AnyToolDefinition) => { source: ToolSource; policy: string },
): void {
  if (definitions.length === 0) {
    process.stdout.write("No tools available.\n");
    return;
  }
  const width = Math.min(32, Math.max(...definitions.map((d) => d.tool.name.length)));
  const on = definitions.filter((d) => settings.enabled(d.tool.name));
  for (const category of [...new Set(on.map((d) => d.category))].sort()) {
    process.stdout.write(`${pc.bold(category)}\n`);
    for (const d of on.filter((x) => x.category === category)) {
      const policy = settings.effectivePolicy(d);
      const flag =
        policy === "never" ? pc.red(" [never: refused]") : policy === "ask" ? pc.yellow(" [approval]") : "";
      process.stdout.write(
        `  ${pc.cyan(d.tool.name.padEnd(width))}  ${firstLine(d.tool.description)}${flag}\n`,
      );
    }
  }
  const off = definitions.filter((d) => !settings.enabled(d.tool.name));
  if (off.length > 0) {
    process.stdout.write(`${pc.bold("switched off (through the server's tool settings)")}\n`);
    for (const d of off) {
      const { source, policy } = status(d);
      const from = source.type === "mcp" ? `mcp server ${source.server}` : source.type;
      process.stdout.write(
        `  ${pc.dim(d.tool.name.padEnd(width))}  [disabled] source: ${from}, policy: ${policy}\n`,
      );
    }
  }
}

/** `tools list`: the tools offered (and, apart, those switched off through the server), with their policies. */
async function listTools(options: ListOptions): Promise<number> {
  const runtime = await createToolsRuntime({
    ...(options.config ? { configPath: options.config } : {}),
    db: options.db,
  });
  try {
    // Tools of the module are "config" tools, as on `serve`, not built-ins.
    const fromModule = options.toolsModule ? await loadToolsModule(options.toolsModule) : [];
    runtime.registry.registerAll(fromModule);
    const moduleTools = new Set(fromModule.map((definition) => definition.tool.name));
    // The settings made through `serve`: switched-off tools are listed as such, with the policy in force.
    const settings = await runtime.withToolSettings();
    const all = runtime.registry.definitions({ includeDisabled: true });
    const categories = [...new Set(all.map((d) => d.category))].sort();
    if (options.category !== undefined && !categories.includes(options.category)) {
      throw new CliError(
        `--category "${options.category}" is not a category of the available tools; the categories are: ${categories.join(", ")}.`,
      );
    }
    const definitions = all.filter((d) => options.category === undefined || d.category === options.category);
    const builtinTools = new Set(
      all
        .filter((d) => !d.category.startsWith("mcp:") && !moduleTools.has(d.tool.name))
        .map((d) => d.tool.name),
    );
    const status = (d: AnyToolDefinition) => ({
      name: d.tool.name,
      category: d.category,
      source: toolSourceOf(d, { builtinTools, mcpServers: runtime.mcpServers }),
      enabled: settings.enabled(d.tool.name),
      policy: settings.effectivePolicy(d),
    });
    if (options.json) {
      // `tools`: the MCP objects of the tools offered (what `mcp` lists); `status`: every tool, switched-off
      // ones too, with its source, on/off state and the approval policy in force.
      const offered = definitions.filter((d) => settings.enabled(d.tool.name));
      process.stdout.write(
        `${JSON.stringify({ tools: offered.map((d) => d.tool), status: definitions.map(status) }, null, 2)}\n`,
      );
      return 0;
    }
    printToolList(definitions, settings, status);
    return 0;
  } finally {
    await runtime.close();
  }
}

/** `tools call <name>`: one call through the call gate and the executor, as the person's own act. */
async function callTool(name: string, options: CallOptions): Promise<number> {
  const args = parseJsonOption(options.args ?? "{}", "--args");
  if (args === null || typeof args !== "object" || Array.isArray(args)) {
    throw new CliError('--args must be a JSON object, e.g. --args \'{"expression": "2+2"}\'');
  }
  const runtime = await createToolsRuntime({
    ...(options.config ? { configPath: options.config } : {}),
    db: options.db,
  });
  try {
    if (options.toolsModule) runtime.registry.registerAll(await loadToolsModule(options.toolsModule));
    const settings = await runtime.withToolSettings();
    // Calling a tool by name is the person's own explicit action: it brings their approval of this very call
    // (so `ask` runs), but what was switched off or set to `never` through the server stays off here too.
    const answer = new CallGate(runtime.registry, settings.approval).check(
      { name, arguments: args },
      { decision: "approved", dryRun: options.dryRun === true },
    );
    if (answer.action === "refuse") {
      const where = `on \`toolbridge serve\` (tool settings in ${runtime.database.label})`;
      const fix =
        answer.reason === "switched-off"
          ? ` Switch it on with PATCH /api/tools/${name} {"enabled": true} ${where}.`
          : answer.reason === "never"
            ? ` Change it with PATCH /api/tools/${name} {"policy": "ask"} ${where}.`
            : "";
      throw new CliError(`${answer.message}${fix}`);
    }
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
}

/** `toolbridge tools …`: each subcommand's flags, then its action above. */
export function registerToolsCommand(program: Command): void {
  const tools = program.command("tools").description("list and call the configured tools");

  tools
    .command("list")
    .description("list the available tools (built-in, configured and mounted MCP servers)")
    .option("--json", 'print the MCP objects: {"tools": [...]}')
    .option("--category <name>", "only tools of this category")
    .option("-c, --config <file>", "config file (default: ./toolbridge.config.json when present)")
    .option("--db <file>", "database for the memory tools (default: the user data folder)")
    .option("--tools-module <file>", "an ES module exporting more tools (`tools` array or default function)")
    .action((options: ListOptions) => runCommand(() => listTools(options)));

  tools
    .command("search")
    .description(
      "rank the available tools for a request, as --max-tools / toolSelection picks them for a model turn",
    )
    .argument("<query>", "what a user would ask")
    .option("--limit <n>", "how many to show (default 10)")
    .option("--json", 'print {"query", "catalogue", "tools": [{name, score, description}]}')
    .option("-c, --config <file>", "config file (default: ./toolbridge.config.json when present)")
    .option("--db <file>", "database of the tool settings (default: the user data folder)")
    .action((query: string, options: SearchOptions) =>
      runCommand(async () => {
        const limit = options.limit === undefined ? 10 : Number(options.limit);
        if (!Number.isInteger(limit) || limit < 1)
          throw new CliError(`--limit must be a positive integer, got "${options.limit}".`);
        if (query.trim() === "")
          throw new CliError('Give the request to rank the tools for, e.g. tools search "weather in Oslo".');
        const runtime = await createToolsRuntime({
          ...(options.config ? { configPath: options.config } : {}),
          db: options.db,
        });
        try {
          const settings = await runtime.withToolSettings();
          const catalogue = runtime.registry.definitions().filter((d) => settings.enabled(d.tool.name));
          const matches = new ToolIndex(catalogue.map((d) => d.tool)).search(query, limit);
          const byName = new Map(catalogue.map((d) => [d.tool.name, d.tool]));
          if (options.json) {
            const tools = matches.map((m) => ({
              name: m.name,
              score: Math.round(m.score * 1000) / 1000,
              description: byName.get(m.name)?.description ?? "",
            }));
            process.stdout.write(
              `${JSON.stringify({ query, catalogue: catalogue.length, tools }, null, 2)}\n`,
            );
            return 0;
          }
          if (matches.length === 0) {
            process.stdout.write(
              `No tool of the ${catalogue.length} available shares a word with "${query}".\n`,
            );
            return 0;
          }
          const width = Math.min(32, Math.max(...matches.map((m) => m.name.length)));
          matches.forEach((m, i) => {
            process.stdout.write(
              `${String(i + 1).padStart(3)}. ${pc.cyan(m.name.padEnd(width))}  ${m.score.toFixed(2).padStart(6)}  ${firstLine(byName.get(m.name)?.description)}\n`,
            );
          });
          const selection = runtime.config.toolSelection;
          if (selection) {
            const always = selection.always?.length ? ` (plus always: ${selection.always.join(", ")})` : "";
            process.stdout.write(
              `toolSelection offers a turn asking this the first ${selection.maxTools} of ${catalogue.length}${always}.\n`,
            );
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
    .option("--tools-module <file>", "an ES module exporting more tools (`tools` array or default function)")
    .action((name: string, options: CallOptions) => runCommand(() => callTool(name, options)));
}
