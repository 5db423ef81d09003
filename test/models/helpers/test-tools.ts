import { z } from "zod";
import { defineTool } from "../../../src/tools/define-tool.js";
import { ToolRegistry } from "../../../src/tools/tool-registry.js";

/** A registry with small real tools (their handlers run; executions are recorded). */
export function createArithmeticTools() {
  const executed: Array<{ name: string; args: Record<string, unknown> }> = [];
  const registry = new ToolRegistry();
  registry.register(
    defineTool({
      name: "add",
      description: "Add two numbers.",
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      annotations: { readOnlyHint: true },
      handler: (args) => {
        executed.push({ name: "add", args });
        return String(args.a + args.b);
      },
    }),
  );
  registry.register(
    defineTool({
      name: "noargs",
      description: "Takes no arguments.",
      inputSchema: z.object({}),
      annotations: { readOnlyHint: true },
      handler: () => {
        executed.push({ name: "noargs", args: {} });
        return "ok";
      },
    }),
  );
  return { registry, executed };
}
