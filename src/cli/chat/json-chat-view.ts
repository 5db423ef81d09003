import { stripVTControlCharacters } from "node:util";
import type { AgentEvent } from "../../agent/events.js";
import type { ChatView } from "./chat-view.js";

/**
 * `chat --json`: every event of every run as one JSON line on stdout (the same objects as the run trace), and the
 * session's own words on stderr — so a script reads events while answering approvals on stdin.
 */
export class JsonChatView implements ChatView {
  constructor(
    private readonly out: NodeJS.WritableStream,
    private readonly notes: NodeJS.WritableStream,
  ) {}

  line(text: string): void {
    this.notes.write(`${stripVTControlCharacters(text)}\n`);
  }

  settle(): void {}

  render(event: AgentEvent): void {
    this.out.write(`${JSON.stringify(event)}\n`);
  }
}
