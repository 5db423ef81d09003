/**
 * The client-tools set (`sets/client-tools.jsonl`): simple tools a `/v1` client defines itself (none of them a
 * toolbridge tool), each with a request written by hand. Each request is sent to `serve`'s real `/v1` with the
 * official openai client, offering its own tool and the next two of the set (so the tool must also be chosen), with
 * `tool_choice` left to the model as clients leave it. Scored on: a call made, the right tool, arguments valid for the
 * schema, arguments exactly the expected ones (matchers as in everyday-set.ts; unnamed properties must be absent).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import OpenAI from "openai";
import type { ChatCompletionFunctionTool } from "openai/resources/chat/completions";
import { serveModelCatalog } from "../../src/cli/serve-models.js";
import { parseConfig } from "../../src/config/load-config.js";
import { bundledModelPath } from "../../src/models/bundled-model.js";
import type { ModelCatalog } from "../../src/server/model-catalog.js";
import { startServer } from "../../src/server/start-server.js";
import { ToolExecutor } from "../../src/tools/tool-executor.js";
import { ToolRegistry } from "../../src/tools/tool-registry.js";
import { validateToolInput } from "../../src/tools/validate-tool-input.js";
import { argumentsMatch, loadJsonLines, type Matcher } from "./everyday-set.js";

export interface ClientToolItem {
  id: string;
  tool: { name: string; description?: string; parameters: Record<string, unknown> };
  request: string;
  expect: Record<string, Matcher>;
}

export const CLIENT_TOOL_SET = fileURLToPath(new URL("sets/client-tools.jsonl", import.meta.url));
/**
 * A second set of 24, the same shape, written after span-copied values (span-grammar.ts) were designed on the first
 * set's failures: a check of that design on requests it was not tuned on. It has no goal of its own.
 */
export const CLIENT_TOOL_CHECK_SET = fileURLToPath(new URL("sets/client-tools-check.jsonl", import.meta.url));

export interface ClientToolOutcome {
  item: ClientToolItem;
  call?: { name: string; arguments: string };
  content: string;
}

export interface ClientToolVerdict {
  called: boolean;
  rightTool: boolean;
  schemaValid: boolean;
  exactArguments: boolean;
}

export function judgeClientTool(o: ClientToolOutcome): ClientToolVerdict {
  const v: ClientToolVerdict = {
    called: o.call !== undefined,
    rightTool: false,
    schemaValid: false,
    exactArguments: false,
  };
  if (!o.call) return v;
  v.rightTool = o.call.name === o.item.tool.name;
  if (!v.rightTool) return v;
  let args: unknown;
  try {
    args = JSON.parse(o.call.arguments);
  } catch {
    return v;
  }
  v.schemaValid = validateToolInput(
    { name: o.item.tool.name, inputSchema: o.item.tool.parameters as { type: "object" } },
    args,
  ).ok;
  v.exactArguments =
    v.schemaValid &&
    typeof args === "object" &&
    args !== null &&
    argumentsMatch({ name: o.item.tool.name, arguments: o.item.expect }, args as Record<string, unknown>, {});
  return v;
}

export interface ClientToolFigures {
  items: number;
  called: number;
  rightTool: number;
  schemaValid: number;
  exactArguments: number;
}

export function summarizeClientTools(verdicts: readonly ClientToolVerdict[]): ClientToolFigures {
  const count = (k: keyof ClientToolVerdict) => verdicts.filter((v) => v[k]).length;
  return {
    items: verdicts.length,
    called: count("called"),
    rightTool: count("rightTool"),
    schemaValid: count("schemaValid"),
    exactArguments: count("exactArguments"),
  };
}

/** Every item through `/v1` of a server serving the model (`modelPath`, or the bundled default). */
export async function runClientToolSet(options: {
  /** The set's file (default `CLIENT_TOOL_SET`). */
  file?: string;
  modelPath?: string;
  copyArguments?: boolean;
  copyWords?: boolean;
  filter?: (index: number) => boolean;
  verbose?: boolean;
}): Promise<ClientToolFigures> {
  const all = loadJsonLines<ClientToolItem>(options.file ?? CLIENT_TOOL_SET);
  const items = all.map((item, i) => ({ item, i })).filter(({ i }) => options.filter?.(i) ?? true);
  const dir = mkdtempSync(path.join(tmpdir(), "toolbridge-eval-v1-"));
  const copy = {
    ...(options.copyArguments === undefined ? {} : { copyArguments: options.copyArguments }),
    ...(options.copyWords === undefined ? {} : { copyWords: options.copyWords }),
  };
  const config = parseConfig(
    {
      model: {
        provider: "llama",
        path: path.resolve(options.modelPath ?? bundledModelPath()),
        nativeTools: false,
        ...copy,
      },
    },
    "toolbridge.config.json",
    dir,
  );
  const models = serveModelCatalog({
    config,
    configFile: path.join(dir, "toolbridge.config.json"),
    env: {},
  }) as ModelCatalog | undefined;
  if (!models?.defaultName) throw new Error("no model to serve");
  const registry = new ToolRegistry();
  const server = await startServer({
    registry,
    executor: new ToolExecutor(registry),
    port: 0,
    openai: { models },
  });
  const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "unused", maxRetries: 0 });
  const verdicts: ClientToolVerdict[] = [];
  try {
    for (const { item, i } of items) {
      const offered = [item, all[(i + 1) % all.length], all[(i + 2) % all.length]] as ClientToolItem[];
      const tools: ChatCompletionFunctionTool[] = offered.map((o) => ({
        type: "function",
        function: {
          name: o.tool.name,
          ...(o.tool.description ? { description: o.tool.description } : {}),
          parameters: o.tool.parameters,
        },
      }));
      // Two items may define tools of one name (two weather tools): offer one of each name, the item's own.
      const unique = tools.filter(
        (t, k) => tools.findIndex((u) => u.function.name === t.function.name) === k,
      );
      const response = await client.chat.completions.create({
        model: models.defaultName,
        messages: [{ role: "user", content: item.request }],
        tools: unique,
      });
      const message = response.choices[0]?.message;
      const first = message?.tool_calls?.find((c) => c.type === "function");
      const outcome: ClientToolOutcome = {
        item,
        content: message?.content ?? "",
        ...(first && first.type === "function"
          ? { call: { name: first.function.name, arguments: first.function.arguments } }
          : {}),
      };
      const v = judgeClientTool(outcome);
      verdicts.push(v);
      if (options.verbose)
        process.stderr.write(
          `${item.id} ${v.rightTool ? "T" : "-"}${v.schemaValid ? "V" : "-"}${v.exactArguments ? "A" : "-"} ${JSON.stringify(item.request)} → ${outcome.call ? `${outcome.call.name} ${outcome.call.arguments}` : JSON.stringify(outcome.content.slice(0, 80))}\n`,
        );
    }
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return summarizeClientTools(verdicts);
}
