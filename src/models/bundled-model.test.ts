import path from "node:path";
import { describe, expect, it } from "vitest";
import { hermesProtocol } from "../protocols/formats/hermes.js";
import {
  applyCatalogueHint,
  BUNDLED_MODEL_METADATA,
  bundledModelPath,
  readModelHints,
} from "./bundled-model.js";

describe("bundled model", () => {
  it("lives in the package's models/ folder, found the same way from src/ and dist/", () => {
    expect(bundledModelPath()).toBe(path.resolve("models/toolbridge-demo.gguf"));
  });

  it("reads its hints from GGUF metadata, flat or nested as node-llama-cpp parses dotted keys", () => {
    expect(readModelHints(BUNDLED_MODEL_METADATA)).toEqual({
      protocol: "hermes",
      catalogue: "compact",
      temperature: 0,
    });
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
});
