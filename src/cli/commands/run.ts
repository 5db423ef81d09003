import os from "node:os";
import type { Command } from "commander";
import {
  type AgentCommandOptions,
  addAgentOptions,
  cliAgentSettings,
  cliRunLimits,
} from "../agent-command-options.js";
import { runCommand } from "../cli-error.js";
import { type CliAgent, createCliAgent, modelSettingsOf } from "../create-cli-agent.js";
import { createLoadProgress } from "../load-progress.js";
import { modelLabel } from "../model-options.js";
import { configuredDb, LazyDatabase, resolveDbLocation } from "../open-store.js";
import { asCliError, describeEvent, printRunView } from "../run-output.js";

/** `toolbridge run <prompt>`: one run through the agent loop; progress on stderr, the answer (or JSON) on stdout. */
async function runPrompt(prompt: string, options: AgentCommandOptions): Promise<number> {
  const settings = cliAgentSettings(options, "run");
  const limits = cliRunLimits(options);
  const database = new LazyDatabase(
    resolveDbLocation({ db: options.db, configDb: configuredDb(options.config) }),
  );
  const store = (await database.open()).store;
  let cli: CliAgent | undefined;
  try {
    // GGUF load progress on stderr, so stdout keeps only the answer (or the JSON).
    const progress = options.json
      ? undefined
      : createLoadProgress(modelLabel(modelSettingsOf(settings)), process.stderr);
    try {
      cli = await createCliAgent(
        settings,
        database,
        limits,
        progress ? { onLoadProgress: (p) => progress.update(p) } : {},
      );
    } finally {
      progress?.finish(cli !== undefined);
    }
    const handle = cli.agent.run(prompt, { metadata: { cli: settings, user: os.userInfo().username } });
    for await (const event of handle) {
      const line = options.json ? undefined : describeEvent(event);
      if (line) process.stderr.write(`${line}\n`);
    }
    const view = await handle.result;
    const record = await store.getRun(view.runId);
    return printRunView(view, options.json === true, record?.error, { db: options.db });
  } catch (error) {
    throw asCliError(error);
  } finally {
    await cli?.close();
    await database.close();
  }
}

export function registerRunCommand(program: Command): void {
  addAgentOptions(
    program
      .command("run")
      .description("run one prompt through the agent loop; a run that needs approval pauses (see `runs`)")
      .argument("<prompt>", "what to ask")
      .option("--json", "print one JSON object: runId, status, stopReason, answer, steps, pending"),
  ).action((prompt: string, options: AgentCommandOptions) => runCommand(() => runPrompt(prompt, options)));
}
