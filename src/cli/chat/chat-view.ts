import type { AgentEvent } from "../../agent/events.js";

/** Where a chat session shows things: the terminal renderer, or JSON lines for scripts (`chat --json`). */
export interface ChatView {
  /** A line of the session's own: banner, help, notices, echoed input. */
  line(text: string): void;
  /** Before a prompt: finish the current line, stop any animation. */
  settle(): void;
  render(event: AgentEvent): void;
}
