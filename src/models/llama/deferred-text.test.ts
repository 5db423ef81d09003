import { describe, expect, it } from "vitest";
import { DeferredText } from "./deferred-text.js";

describe("DeferredText", () => {
  it("hands on text after the current turn of the event loop, joined and in order", async () => {
    const delivered: string[] = [];
    const deferred = new DeferredText((text) => delivered.push(text));
    deferred.add("Hel");
    deferred.add("lo");
    await Promise.resolve();
    expect(delivered).toEqual([]); // not in the microtasks that follow a token
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(delivered).toEqual(["Hello"]);
    deferred.add(" world");
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(delivered).toEqual(["Hello", " world"]);
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
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(delivered).toEqual(["a"]);
  });
});
