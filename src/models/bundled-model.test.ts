import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { hermesProtocol } from "../protocols/formats/hermes.js";
import {
  applyCatalogueHint,
  BUNDLED_MODEL_METADATA,
  bundledModelPath,
  lastRequestOnly,
  lastRequests,
  modeFromHints,
  readGgufModelHints,
  readModelHints,
} from "./bundled-model.js";
import { writeTestModel } from "./gguf/make-test-model.js";

describe("bundled model", () => {
  it("lives in the package's models/ folder, found the same way from src/ and dist/", () => {
    expect(bundledModelPath()).toBe(path.resolve("models/toolbridge-demo.gguf"));
  });

  it("reads its hints from GGUF metadata, flat or nested as node-llama-cpp parses dotted keys", () => {
    expect(readModelHints(BUNDLED_MODEL_METADATA)).toEqual({
      protocol: "hermes",
      catalogue: "compact",
      temperature: 0,
      history: 2,
    });
    expect(readModelHints({ "toolbridge.history": "last-request" })).toEqual({ history: 1 });
    expect(readModelHints({ "toolbridge.history": "last-requests:0" })).toEqual({});
    expect(readModelHints({ "toolbridge.history": "everything" })).toEqual({});
    expect(
      readModelHints({ toolbridge: { protocol: "hermes", catalogue: "compact", temperature: "0" } }),
    ).toEqual({
      protocol: "hermes",
      catalogue: "compact",
      temperature: 0,
    });
    expect(readModelHints({ general: { name: "qwen" } })).toEqual({});
  });

  it("applies the compact catalogue only when the model asks for it", () => {
    const tools = [
      {
        name: "calculator",
        inputSchema: { type: "object" as const, properties: { expression: { type: "string" } } },
      },
    ];
    expect(applyCatalogueHint(hermesProtocol, {}).renderCatalogue(tools)).toBe(
      hermesProtocol.renderCatalogue(tools),
    );
    expect(applyCatalogueHint(hermesProtocol, { catalogue: "compact" }).renderCatalogue(tools)).toContain(
      "calculator(expression?)",
    );
  });

  it("shows a last-request model the system prompt and the latest request with its calls, not earlier exchanges", () => {
    const call = { id: "c2", name: "roll_dice", arguments: { notation: "2d6" } };
    const result = { content: [{ type: "text" as const, text: "Rolled 2d6: [3, 4] = 7. Total: 7." }] };
    const messages = [
      { role: "system" as const, content: "be brief" },
      { role: "user" as const, content: "what is 2+2?" },
      { role: "assistant" as const, content: "", toolCalls: [{ ...call, id: "c1", name: "calculator" }] },
      { role: "tool" as const, callId: "c1", name: "calculator", result },
      { role: "assistant" as const, content: "4" },
      { role: "user" as const, content: "roll 2d6" },
      { role: "assistant" as const, content: "", toolCalls: [call] },
      { role: "tool" as const, callId: "c2", name: "roll_dice", result },
    ];
    expect(lastRequestOnly(messages)).toEqual([messages[0], ...messages.slice(5)]);
    expect(lastRequestOnly(messages.slice(1, 2))).toEqual(messages.slice(1, 2));
    // Two requests: the previous exchange stays, for a follow-up that needs it; a third request drops the first.
    expect(lastRequests(messages, 2)).toEqual(messages);
    const third = [
      ...messages,
      { role: "assistant" as const, content: "7" },
      { role: "user" as const, content: "again" },
    ];
    expect(lastRequests(third, 2)).toEqual([messages[0], ...third.slice(5)]);
  });
});

describe("GGUF hints read from the file header", () => {
  it("choose text mode for a file that names its protocol, whatever path it is given by", async () => {
    const hints = await readGgufModelHints(path.relative(process.cwd(), bundledModelPath()));
    expect(hints).toMatchObject({ protocol: "hermes", history: expect.any(Number) });
    expect(modeFromHints(undefined, hints)).toBe("text");
    // The caller's explicit choice still wins.
    expect(modeFromHints("native", hints)).toBe("native");
  });

  it("leave a GGUF without hints, and a file that cannot be read, to the backend's default", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "tb-hints-"));
    try {
      writeTestModel(path.join(dir, "tiny.gguf"));
      expect(modeFromHints(undefined, await readGgufModelHints(path.join(dir, "tiny.gguf")))).toBeUndefined();
      expect(await readGgufModelHints(path.join(dir, "missing.gguf"))).toEqual({});
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
