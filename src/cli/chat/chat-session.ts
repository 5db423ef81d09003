import os from "node:os";
import pc from "picocolors";
import { DecisionError } from "../../agent/agent-errors.js";
import type { Agent } from "../../agent/create-agent.js";
import type { PendingCall } from "../../agent/events.js";
import type { RunLimits } from "../../agent/limits.js";
import type { RunHandle } from "../../agent/run-handle.js";
import type { RunView } from "../../agent/run-view.js";
import { inCliTerms } from "../cli-wording.js";
import { commandHint, type HintContext } from "../command-hint.js";
import { firstSentence } from "../first-sentence.js";
import { approvalQuestion, parseApprovalAnswer } from "./approval-answer.js";
import type { ChatView } from "./chat-view.js";
import type { LineReader } from "./line-reader.js";

export interface ChatSessionOptions {
  agent: Agent;
  reader: LineReader;
  renderer: ChatView;
  /** Stored with each run, so `toolbridge runs …` can rebuild the agent of a run left paused. */
  metadata: Record<string, unknown>;
  limits?: Partial<RunLimits>;
  /** Continue this stored conversation instead of starting a new one. */
  conversationId?: string;
  /** Tool names the user allowed "always for this chat"; the agent's approval policy reads the same set. */
  alwaysAllowed: Set<string>;
  /** For the exit note: where the conversation is kept. */
  dbLocation: string;
  /** The `--db`/`--config` the chat was started with, repeated in the commands it prints so that pasting them works. */
  hintContext?: HintContext;
  /** Shown once at the start, e.g. the model and how tools reach it. */
  banner: string;
}

const HELP = [
  "Type a message and press Enter. Commands:",
  "  /tools   list the tools the model can call",
  "  /new     start a new conversation",
  "  /help    this help",
  "  /exit    leave (Ctrl-D does too; Ctrl-C stops a running answer)",
  "At an approval prompt: y (yes), n [reason] (no; the model sees the reason), e (edit the arguments as JSON),",
  "a (allow this tool for the rest of this chat).",
].join("\n");

/**
 * The interactive chat: reads a message, runs the agent on the stored conversation, shows what happens, asks for
 * approvals at the prompt, and resumes the run with the decisions — until /exit or the end of input.
 */
export class ChatSession {
  readonly #o: ChatSessionOptions;
  #conversationId: string | undefined;
  #running: AbortController | undefined;
  #stopped = 0;

  constructor(options: ChatSessionOptions) {
    this.#o = options;
    this.#conversationId = options.conversationId;
  }

  /** Ctrl-C: stop the answer being generated; at the prompt, leave. */
  interrupt(): void {
    if (this.#running) {
      this.#running.abort();
      this.#o.renderer.line(pc.yellow("(stopping…)"));
    } else {
      this.#o.reader.close();
    }
  }

  /** Runs until the user leaves. Returns the exit code: 1 when input came from a pipe and some run failed. */
  async start(): Promise<number> {
    const { reader, renderer } = this.#o;
    renderer.line(this.#o.banner);
    for (;;) {
      renderer.settle();
      const line = await reader.next(pc.bold(pc.green("› ")));
      if (line === null) break;
      const text = line.trim();
      if (text === "") continue;
      if (!reader.interactive) renderer.line(`${pc.bold("›")} ${text}`);
      if (text.startsWith("/")) {
        if (this.#command(text) === "exit") break;
        continue;
      }
      if ((await this.#ask(text)) === "end-of-input") break;
    }
    renderer.settle();
    if (this.#conversationId) {
      renderer.line(
        pc.dim(
          `Conversation ${this.#conversationId} is saved in ${this.#o.dbLocation}; continue it with \`${commandHint(["chat", "--conversation", this.#conversationId], this.#o.hintContext ?? {}, { withConfig: true })}\`.`,
        ),
      );
    }
    return !reader.interactive && this.#stopped > 0 ? 1 : 0;
  }

  #command(text: string): "exit" | undefined {
    const [name] = text.split(/\s+/, 1);
    const { renderer } = this.#o;
    switch (name) {
      case "/exit":
      case "/quit":
        return "exit";
      case "/help":
        renderer.line(HELP);
        return undefined;
      case "/tools": {
        const tools = this.#o.agent.tools();
        if (tools.length === 0) renderer.line("No tools are offered.");
        // Names in one column, the first sentence beside them (the model gets the whole description).
        const width = Math.max(0, ...tools.map((d) => d.tool.name.length));
        for (const d of tools) {
          const gate = this.#o.alwaysAllowed.has(d.tool.name)
            ? pc.green(" [always allowed in this chat]")
            : d.requiresApproval
              ? pc.yellow(" [asks for approval]")
              : "";
          renderer.line(
            `  ${pc.bold(d.tool.name.padEnd(width))}  ${pc.dim(firstSentence(d.tool.description))}${gate}`,
          );
        }
        return undefined;
      }
      case "/new":
        this.#conversationId = undefined;
        renderer.line(pc.dim("New conversation."));
        return undefined;
      default:
        renderer.line(`Unknown command ${name}; /help lists the commands.`);
        return undefined;
    }
  }

  async #ask(prompt: string): Promise<"done" | "end-of-input"> {
    const { agent, renderer } = this.#o;
    const controller = new AbortController();
    this.#running = controller;
    try {
      let handle: RunHandle = agent.run(prompt, {
        ...(this.#conversationId ? { conversationId: this.#conversationId } : {}),
        ...(this.#o.limits ? { limits: this.#o.limits } : {}),
        signal: controller.signal,
        metadata: this.#o.metadata,
      });
      for (;;) {
        const view = await this.#show(handle);
        if (!view) return "done";
        if (view.status === "stopped") this.#stopped += 1;
        if (view.status !== "paused") return "done";
        this.#running = undefined;
        if (!(await this.#decide(view))) {
          renderer.line(
            pc.yellow(
              `Run ${view.runId} is left paused, waiting for approval; decide later with ${view.pending
                .map(
                  (p) =>
                    `\`${commandHint(["runs", "approve", view.runId, p.callId], this.#o.hintContext ?? {})}\``,
                )
                .join(
                  ", ",
                )} (or \`runs deny\`), then \`${commandHint(["runs", "resume", view.runId], this.#o.hintContext ?? {})}\`.`,
            ),
          );
          return "end-of-input";
        }
        this.#running = controller;
        handle = agent.resume(view.runId, { signal: controller.signal });
      }
    } finally {
      this.#running = undefined;
    }
  }

  /** Draw a run's events; its view when it ended normally, undefined when it failed (the error is shown). */
  async #show(handle: RunHandle): Promise<RunView | undefined> {
    const { renderer } = this.#o;
    try {
      for await (const event of handle) {
        if (event.type === "run-started") this.#conversationId = event.conversationId;
        renderer.render(event);
      }
      return await handle.result;
    } catch (error) {
      this.#stopped += 1;
      renderer.line(pc.red(`! ${inCliTerms((error as Error).message)}`));
      return undefined;
    }
  }

  /** Ask about each pending call; false when input ended before every call was decided. */
  async #decide(view: RunView): Promise<boolean> {
    for (const call of view.pending) {
      if (this.#o.alwaysAllowed.has(call.name)) {
        await this.#o.agent.approve(view.runId, call.callId, {
          by: `${os.userInfo().username} (chat: always)`,
        });
        continue;
      }
      if (!(await this.#decideOne(view.runId, call))) return false;
    }
    return true;
  }

  async #decideOne(runId: string, call: PendingCall): Promise<boolean> {
    const { reader, renderer, agent } = this.#o;
    const by = `${os.userInfo().username} (chat)`;
    for (;;) {
      renderer.settle();
      const question = approvalQuestion(call.name, call.arguments);
      const answerText = await reader.next(pc.yellow(question));
      if (answerText === null) return false;
      if (!reader.interactive) renderer.line(`${question}${answerText.trim()}`);
      const answer = parseApprovalAnswer(answerText);
      try {
        switch (answer.kind) {
          case "yes":
            await agent.approve(runId, call.callId, { by });
            return true;
          case "always":
            this.#o.alwaysAllowed.add(call.name);
            await agent.approve(runId, call.callId, { by: `${by}: always` });
            return true;
          case "no":
            await agent.deny(runId, call.callId, { by, ...(answer.reason ? { reason: answer.reason } : {}) });
            renderer.line(pc.dim(`  denied ${call.name}`));
            return true;
          case "edit": {
            const edited = await reader.next("arguments (JSON): ", JSON.stringify(call.arguments));
            if (edited === null) return false;
            if (!reader.interactive) renderer.line(`arguments (JSON): ${edited.trim()}`);
            let args: unknown;
            try {
              args = JSON.parse(edited);
            } catch (error) {
              renderer.line(
                pc.red(`That is not JSON (${(error as Error).message}); the call is still waiting.`),
              );
              continue;
            }
            if (args === null || typeof args !== "object" || Array.isArray(args)) {
              renderer.line(pc.red("The arguments must be a JSON object; the call is still waiting."));
              continue;
            }
            await agent.approve(runId, call.callId, { by, arguments: args as Record<string, unknown> });
            return true;
          }
          case "unclear":
            renderer.line(
              "Answer y (yes), n [reason] (no), e (edit the arguments) or a (always for this chat).",
            );
            continue;
        }
      } catch (error) {
        // Edited arguments that fail the tool's schema: say why and ask again; the call stays pending.
        if (error instanceof DecisionError) {
          renderer.line(pc.red(error.message));
          continue;
        }
        throw error;
      }
    }
  }
}
