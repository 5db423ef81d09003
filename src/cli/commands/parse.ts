import { readFileSync } from "node:fs";
import type { Tool } from "@modelcontextprotocol/server";
import type { Command } from "commander";
import { parseToolCalls } from "../../protocols/parse-tool-calls.js";
import { ProtocolNotImplementedError, UnknownProtocolError } from "../../protocols/protocol-errors.js";
import { getProtocol, listProtocols } from "../../protocols/protocol-registry.js";
import type { ParseResult } from "../../protocols/types.js";
import { CliError, parseJsonOption, runCommand } from "../cli-error.js";

interface ParseOptions {
  format?: string;
  tools?: string;
  prefix?: string;
  jsonl?: boolean;
}

/** The printed shape: calls without ids (ids are generated, not read), errors as messages with raw text. */
function view(r: ParseResult): Record<string, unknown> {
  return {
    calls: r.calls.map((c) => ({ name: c.name, arguments: c.arguments })),
    content: r.content,
    reasoning: r.reasoning,
    errors: r.errors,
    ...(r.truncated ? { truncated: true } : {}),
  };
}

function protocolOrUsageError(id: string) {
  try {
    return getProtocol(id);
  } catch (error) {
    if (error instanceof UnknownProtocolError || error instanceof ProtocolNotImplementedError) {
      throw new CliError(error.message);
    }
    throw error;
  }
}

function readTools(path: string): Tool[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new CliError(`cannot read --tools file ${path}: ${(error as Error).message}`);
  }
  const value = parseJsonOption(text, "--tools");
  const tools = Array.isArray(value) ? value : (value as { tools?: unknown })?.tools;
  if (!Array.isArray(tools))
    throw new CliError('--tools must hold a JSON array of MCP tools (or {"tools": [...]})');
  return tools as Tool[];
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** One `--jsonl` line → its result line; a malformed line gives an error line and marks the run as exit 2. */
export function parseJsonlLine(line: string): { out: Record<string, unknown>; ok: boolean } {
  let input: unknown;
  try {
    input = JSON.parse(line);
  } catch (error) {
    return { out: { error: `the line is not valid JSON: ${(error as Error).message}` }, ok: false };
  }
  const o = input as Record<string, unknown>;
  const id = o?.id;
  const withId = (x: Record<string, unknown>) => (id === undefined ? x : { id, ...x });
  if (typeof o !== "object" || o === null || Array.isArray(o)) {
    return {
      out: { error: "each line must be a JSON object {id, format, text, tools?, prefix?}" },
      ok: false,
    };
  }
  if (typeof o.format !== "string" || typeof o.text !== "string") {
    return { out: withId({ error: 'the line needs "format" and "text" strings' }), ok: false };
  }
  if (o.tools !== undefined && !Array.isArray(o.tools)) {
    return { out: withId({ error: '"tools" must be an array of MCP tools' }), ok: false };
  }
  if (o.prefix !== undefined && typeof o.prefix !== "string") {
    return { out: withId({ error: '"prefix" must be a string' }), ok: false };
  }
  let protocol: ReturnType<typeof getProtocol>;
  try {
    protocol = getProtocol(o.format);
  } catch (error) {
    return { out: withId({ error: (error as Error).message }), ok: false };
  }
  const result = parseToolCalls(protocol, o.text, {
    ...(o.tools ? { tools: o.tools as Tool[] } : {}),
    ...(o.prefix !== undefined ? { prefix: o.prefix as string } : {}),
  });
  return { out: withId(view(result)), ok: true };
}

/** `toolbridge parse`: read model output, print the tool calls a format finds in it. */
export function registerParseCommand(program: Command): void {
  program
    .command("parse")
    .description("Parse tool calls out of model output (stdin) in a text tool-call format")
    .option(
      "--format <id>",
      `tool-call format id: ${listProtocols()
        .map((p) => p.id)
        .join(", ")}`,
    )
    .option("--tools <file>", "JSON file with the MCP tools offered (for coercion by schema)")
    .option("--prefix <text>", "what the prompt ended with, e.g. <think>")
    .option("--jsonl", "read lines {id, format, text, tools?, prefix?} and print one result line each")
    .action((opts: ParseOptions) =>
      runCommand(async () => {
        if (opts.jsonl) {
          const input = await readStdin();
          let failed = false;
          for (const line of input.split("\n")) {
            if (line.trim() === "") continue;
            const { out, ok } = parseJsonlLine(line);
            if (!ok) failed = true;
            process.stdout.write(`${JSON.stringify(out)}\n`);
          }
          if (failed)
            process.stderr.write("toolbridge: some input lines were malformed (see their error lines)\n");
          return failed ? 2 : 0;
        }
        if (!opts.format) throw new CliError("--format <id> is required (or use --jsonl)");
        const protocol = protocolOrUsageError(opts.format);
        const tools = opts.tools ? readTools(opts.tools) : undefined;
        const text = await readStdin();
        const result = parseToolCalls(protocol, text, {
          ...(tools ? { tools } : {}),
          ...(opts.prefix !== undefined ? { prefix: opts.prefix } : {}),
        });
        process.stdout.write(`${JSON.stringify(view(result))}\n`);
        return 0;
      }),
    );
}
