import { describe, expect, it, vi } from "vitest";
import { DeferredText } from "./deferred-text.js";

/** Two turns of the event loop: what DeferredText waits before it hands text on. */
const twoTurns = () => new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));

describe("DeferredText", () => {
  it("hands on text after the current turn of the event loop, joined and in order", async () => {
    const delivered: string[] = [];
    const deferred = new DeferredText((text) => delivered.push(text));
    deferred.add("Hel");
    deferred.add("lo");
    await Promise.resolve();
    expect(delivered).toEqual([]); // not in the microtasks that follow a token
    await vi.waitFor(() => expect(delivered).toEqual(["Hello"]));
    deferred.add(" world");
    await vi.waitFor(() => expect(delivered).toEqual(["Hello", " world"]));
    deferred.dispose();
  });

  it("flush hands on what is held at once, so nothing after it can overtake the text", () => {
    const delivered: string[] = [];
    const deferred = new DeferredText((text) => delivered.push(text));
    deferred.add("before the call");
    deferred.flush();
    delivered.push("<call>");
    expect(delivered).toEqual(["before the call", "<call>"]);
    deferred.dispose();
  });

  it("delivers nothing twice when the timer fires after a flush, and nothing after dispose", async () => {
    const delivered: string[] = [];
    const deferred = new DeferredText((text) => delivered.push(text));
    deferred.add("a");
    deferred.flush();
    deferred.add("b");
    deferred.dispose();
    await twoTurns(); // when its timer would have fired
    expect(delivered).toEqual(["a"]);
  });
});
