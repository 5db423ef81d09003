import os from "node:os";
import type { Command } from "commander";
import pc from "picocolors";
import {
  type AgentCommandOptions,
  addAgentOptions,
  cliAgentSettings,
  cliRunLimits,
} from "../agent-command-options.js";
import { ChatRenderer } from "../chat/chat-renderer.js";
import { ChatSession } from "../chat/chat-session.js";
import { JsonChatView } from "../chat/json-chat-view.js";
import { LineReader } from "../chat/line-reader.js";
import { CliError, runCommand } from "../cli-error.js";
import { type CliAgent, createCliAgent } from "../create-cli-agent.js";
import { bundledModelIntro, isBundledModel } from "../default-model.js";
import { createLoadProgress } from "../load-progress.js";
import { type ModelSettings, modelLabel } from "../model-options.js";
import { configuredDb, LazyDatabase, resolveDbLocation } from "../open-store.js";
import { asCliError } from "../run-output.js";

interface ChatCommandOptions extends AgentCommandOptions {
  conversation?: string;
}

function routingLabel(cli: CliAgent): string {
  if (cli.nativeTools === undefined) return "scripted replay";
  return cli.nativeTools ? "native tool calling" : "tools through a text protocol";
}

export function registerChatCommand(program: Command): void {
  addAgentOptions(
    program
      .command("chat")
      .description(
        "chat with a model that calls tools: streamed answers, tool calls as they happen, approvals here",
      )
      .option("--conversation <id>", "continue a stored conversation")
      .option(
        "--json",
        "print every event as a JSON line (notes and prompts go to stderr); answers still read from stdin",
      ),
  ).action((options: ChatCommandOptions) =>
    runCommand(async () => {
      const settings = cliAgentSettings(options, "chat");
      const limits = cliRunLimits(options);
      // Continuing a conversation only reads: a database that is not there is reported, not created empty.
      const database = new LazyDatabase(
        resolveDbLocation({ db: options.db, configDb: configuredDb(options.config) }),
      );
      const store = (await (options.conversation ? database.openExisting(options.db) : database.open()))
        .store;
      const alwaysAllowed = new Set<string>();
      const out = process.stdout;
      const model = settings.model as ModelSettings;
      const progress = createLoadProgress(modelLabel(model), options.json ? process.stderr : out);
      let cli: CliAgent | undefined;
      let reader: LineReader | undefined;
      try {
        // Before loading the model: a mistyped id should not cost a model load.
        if (options.conversation && (await store.listMessages(options.conversation)).length === 0) {
          progress.finish(false);
          throw new CliError(
            `No conversation "${options.conversation}" in ${store.location}; start a new chat without --conversation.`,
          );
        }
        try {
          cli = await createCliAgent(settings, database, limits, {
            onLoadProgress: (p) => progress.update(p),
            approval: (call) => (alwaysAllowed.has(call.name) ? "always" : undefined),
            startCalculator: true,
          });
          progress.finish(true);
        } catch (error) {
          progress.finish(false);
          throw error;
        }
        const count = cli.agent.tools().length;
        const tools = `${count} tool${count === 1 ? "" : "s"}`;
        let session: ChatSession | undefined;
        reader = new LineReader({
          input: process.stdin,
          output: out,
          onInterrupt: () => session?.interrupt(),
        });
        const renderer = options.json
          ? new JsonChatView(out, process.stderr)
          : new ChatRenderer({ out, interactive: reader.interactive });
        session = new ChatSession({
          agent: cli.agent,
          reader,
          renderer,
          metadata: { cli: settings, user: os.userInfo().username, via: "chat" },
          ...(Object.keys(limits).length ? { limits } : {}),
          ...(options.conversation ? { conversationId: options.conversation } : {}),
          alwaysAllowed,
          dbLocation: store.location,
          hintContext: { db: options.db, config: options.config },
          banner: pc.dim(
            [
              `toolbridge chat · ${cli.agent.model.id} (${routingLabel(cli)}) · ${tools} · /help for commands, /exit to leave`,
              ...(isBundledModel(model)
                ? [bundledModelIntro(options.allow === undefined && settings.allow !== undefined)]
                : []),
            ].join("\n"),
          ),
        });
        return await session.start();
      } catch (error) {
        throw asCliError(error);
      } finally {
        reader?.close();
        await cli?.close();
        await database.close();
      }
    }),
  );
}
