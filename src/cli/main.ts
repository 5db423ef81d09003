#!/usr/bin/env node
import { Command } from "commander";
import { registerChatCommand } from "./commands/chat.js";
import { registerEvalCommand } from "./commands/eval.js";
import { registerMcpCommand } from "./commands/mcp.js";
import { registerParseCommand } from "./commands/parse.js";
import { registerRunCommand } from "./commands/run.js";
import { registerRunsCommand } from "./commands/runs.js";
import { registerServeCommand } from "./commands/serve.js";
import { registerToolsCommand } from "./commands/tools.js";
import { readPackageVersion } from "./package-version.js";

const program = new Command()
  .name("toolbridge")
  .description("Reliable, safe tool use for any language model through MCP.")
  .version(readPackageVersion())
  .showHelpAfterError()
  // Usage errors exit 2, like input validation errors; 1 is kept for "the tool/run failed".
  .exitOverride((error) => {
    if (error.code === "commander.helpDisplayed" || error.code === "commander.version") process.exit(0);
    process.exit(error.exitCode === 0 ? 0 : 2);
  });

// Commands register themselves here, one file each under ./commands/.
registerToolsCommand(program);
registerChatCommand(program);
registerRunCommand(program);
registerRunsCommand(program);
registerMcpCommand(program);
registerServeCommand(program);
registerParseCommand(program);
registerEvalCommand(program);

await program.parseAsync(process.argv);
