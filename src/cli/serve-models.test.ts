import { describe, expect, it } from "vitest";
import { BUNDLED_MODEL_TOOLS } from "../models/bundled-model.js";
import { BUNDLED_MODEL_NAME, serveModelCatalog } from "./serve-models.js";

describe("serve's models", () => {
  it("offers the bundled demo model's runs only the tools it was trained on, as run and chat do", () => {
    const catalog = serveModelCatalog({ config: {}, configFile: undefined, env: {} });
    expect(catalog?.defaultName).toBe(BUNDLED_MODEL_NAME);
    expect(catalog?.runToolsOf(BUNDLED_MODEL_NAME)).toEqual(BUNDLED_MODEL_TOOLS);
    expect(BUNDLED_MODEL_TOOLS).not.toContain("write_file");
  });

  it("offers every tool when the config names the tools to allow", () => {
    const catalog = serveModelCatalog({
      config: { tools: { allow: ["calculator", "write_file"] } },
      configFile: undefined,
      env: {},
    });
    expect(catalog?.runToolsOf(BUNDLED_MODEL_NAME)).toBeUndefined();
  });
});
