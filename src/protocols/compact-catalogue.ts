import type { Tool } from "@modelcontextprotocol/server";
import type { ToolCallProtocol } from "./protocol.js";
import type { RenderCatalogueOptions } from "./types.js";

/**
 * A short catalogue for tiny models: one line per tool, `name(arg, optional_arg?)`, then one example call in the
 * protocol's own words. The full JSON-schema catalogue costs hundreds of tokens per prompt, which a model trained
 * from scratch on a CPU cannot afford; the call-body grammar still enforces each schema at generation time.
 * The bundled model (models/toolbridge-demo.gguf) was trained on exactly this text, so any change here needs a
 * retrained model (`npm run train-model`).
 */
export function renderCompactCatalogue(
  protocol: Pick<ToolCallProtocol, "renderAssistantTurn">,
  tools: readonly Tool[],
  opts: RenderCatalogueOptions = {},
): string {
  const lines = tools.map((tool) => {
    const schema = tool.inputSchema;
    const required = new Set(schema.required ?? []);
    const args = Object.keys(schema.properties ?? {}).map((name) => (required.has(name) ? name : `${name}?`));
    return `${tool.name}(${args.join(", ")})`;
  });
  const example = protocol.renderAssistantTurn({ calls: [{ id: "call_0", name: "NAME", arguments: {} }] });
  return [
    "Tools:",
    ...lines,
    "Call one as:",
    example,
    ...(opts.parallel === false ? ["Call at most one function per turn."] : []),
    ...(opts.extraInstructions ? [opts.extraInstructions] : []),
  ].join("\n");
}

/** `protocol` with the compact catalogue; parsing and transcript rendering are unchanged. */
export function withCompactCatalogue(protocol: ToolCallProtocol): ToolCallProtocol {
  return {
    ...protocol,
    renderCatalogue: (tools, opts) => renderCompactCatalogue(protocol, tools, opts),
  };
}
