import { describe, expect, it } from "vitest";
import { ToolExecutor } from "../../tools/tool-executor.js";
import { ToolRegistry } from "../../tools/tool-registry.js";
import { createServerApp } from "../create-server-app.js";
import { SignInFailureLimiter } from "./sign-in-failure-limiter.js";

describe("the sign-in limit under guesses sent all at once", () => {
  it("compares no more than N tokens even when every guess passed the route's guard before any body arrived", async () => {
    const registry = new ToolRegistry();
    const { app } = createServerApp({
      registry,
      executor: new ToolExecutor(registry),
      token: "right-token",
      signInLimit: {
        limiter: new SignInFailureLimiter({ maxFailures: 3 }),
        clientAddress: () => "203.0.113.9",
      },
    });
    // Every request is handed to the app with its body still to come, so all pass the up-front check first.
    const senders: Array<ReadableStreamDefaultController<Uint8Array>> = [];
    const replies = Array.from({ length: 20 }, () => {
      const body = new ReadableStream<Uint8Array>({ start: (controller) => void senders.push(controller) });
      return app.fetch(
        new Request("http://127.0.0.1:8080/api/session", {
          method: "POST",
          headers: { host: "127.0.0.1:8080", "content-type": "application/json" },
          body,
          duplex: "half",
        } as RequestInit),
      );
    });
    for (const [i, sender] of senders.entries()) {
      sender.enqueue(new TextEncoder().encode(JSON.stringify({ token: `guess-${i}` })));
      sender.close();
    }
    const statuses = (await Promise.all(replies)).map((reply) => reply.status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(3);
    expect(statuses.filter((status) => status === 429)).toHaveLength(17);
  });
});
