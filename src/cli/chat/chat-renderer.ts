import ora, { type Ora } from "ora";
import pc from "picocolors";
import type { AgentEvent } from "../../agent/events.js";
import { resultText } from "../../tools/normalize-tool-result.js";
import { inCliTerms } from "../cli-wording.js";
import type { ChatView } from "./chat-view.js";

export interface ChatRendererOptions {
  out: NodeJS.WritableStream & { isTTY?: boolean };
  /** A terminal: animate a spinner while tools run (a plain "running…" line otherwise). */
  interactive: boolean;
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

function duration(ms: number | null): string {
  if (ms === null) return "";
  return ms < 1000 ? ` (${ms} ms)` : ` (${(ms / 1000).toFixed(1)} s)`;
}

/**
 * Draws a run's events in the terminal as they happen: answer text streamed, reasoning dimmed, each tool call with its
 * arguments, a spinner while tools run, then each result or error with its duration.
 */
export class ChatRenderer implements ChatView {
  readonly #out: ChatRendererOptions["out"];
  readonly #interactive: boolean;
  #atLineStart = true;
  #inReasoning = false;
  /** Answer text streamed in the current step (a final answer not streamed is printed at the end). */
  #streamedThisStep = false;
  readonly #running = new Map<string, string>();
  #spinner: Ora | undefined;

  constructor(options: ChatRendererOptions) {
    this.#out = options.out;
    this.#interactive = options.interactive;
  }

  /** Write a line of the session's own (prompts' context, notices), on a fresh line. */
  line(text: string): void {
    this.#pauseSpinner();
    this.#newline();
    this.#out.write(`${text}\n`);
    this.#atLineStart = true;
    this.#resumeSpinner();
  }

  /** Make sure what comes next (a prompt) starts on its own line, with no spinner drawing over it. */
  settle(): void {
    this.#stopSpinner();
    this.#endReasoning();
    this.#newline();
  }

  render(event: AgentEvent): void {
    switch (event.type) {
      case "step-started":
        this.#streamedThisStep = false;
        break;
      case "reasoning-delta":
        if (!this.#inReasoning) {
          this.#newline();
          this.#inReasoning = true;
        }
        this.#write(pc.dim(pc.italic(event.text)), event.text);
        break;
      case "text-delta":
        this.#endReasoning();
        if (event.text) this.#streamedThisStep = true;
        this.#write(event.text, event.text);
        break;
      case "call-finished":
        this.line(
          `${pc.cyan("⚙")} ${pc.bold(event.name)} ${pc.dim(oneLine(JSON.stringify(event.arguments), 400))}`,
        );
        break;
      case "call-invalid":
        this.line(`${pc.red("✗")} ${pc.bold(event.name)}: ${oneLine(event.message, 400)}`);
        break;
      case "approval-decided":
        // Decisions taken at this prompt are already on screen; this shows decisions made by policy or elsewhere.
        break;
      case "tool-started":
        this.#running.set(event.callId, event.name);
        this.#startSpinner();
        break;
      case "tool-result": {
        this.#running.delete(event.callId);
        const text = oneLine(resultText(event.result), 400);
        const failed = event.result.isError === true;
        const mark = failed ? pc.red("✗") : pc.green("✓");
        const note = event.status === "ok" ? "" : pc.dim(` [${event.status}]`);
        const body = (failed ? pc.red(text || event.status) : text) + note;
        this.line(`  ${mark} ${event.name} → ${body}${pc.dim(duration(event.durationMs))}`);
        if (this.#running.size === 0) this.#stopSpinner();
        break;
      }
      case "error":
        this.line(pc.red(`! ${inCliTerms(event.message)}`));
        break;
      case "run-finished":
        this.#stopSpinner();
        this.#endReasoning();
        if (event.status === "finished" && event.answer && !this.#streamedThisStep) {
          this.#write(event.answer, event.answer);
        }
        this.#newline();
        if (event.status === "stopped") this.line(pc.yellow(`(run stopped: ${event.stopReason})`));
        break;
      default:
        break;
    }
  }

  #write(styled: string, plain: string): void {
    if (plain === "") return;
    this.#pauseSpinner();
    this.#out.write(styled);
    this.#atLineStart = plain.endsWith("\n");
  }

  #newline(): void {
    if (!this.#atLineStart) {
      this.#out.write("\n");
      this.#atLineStart = true;
    }
  }

  #endReasoning(): void {
    if (this.#inReasoning) {
      this.#inReasoning = false;
      this.#newline();
    }
  }

  #spinnerText(): string {
    return `running ${[...new Set(this.#running.values())].join(", ")}…`;
  }

  #startSpinner(): void {
    if (this.#spinner) {
      this.#spinner.text = this.#spinnerText();
      return;
    }
    this.#newline();
    if (this.#interactive) {
      this.#spinner = ora({
        text: this.#spinnerText(),
        stream: this.#out as NodeJS.WriteStream,
        discardStdin: false,
      });
      this.#spinner.start();
    } else {
      this.#out.write(pc.dim(`  ${this.#spinnerText()}\n`));
    }
  }

  #pauseSpinner(): void {
    if (this.#spinner?.isSpinning) this.#spinner.clear();
  }

  #resumeSpinner(): void {
    if (this.#spinner?.isSpinning) this.#spinner.render();
  }

  #stopSpinner(): void {
    if (this.#spinner) {
      this.#spinner.stop();
      this.#spinner = undefined;
    }
  }
}
