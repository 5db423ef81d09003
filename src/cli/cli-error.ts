import { ConfigError } from "../config/load-config.js";
import { ToolDefinitionError, ToolNotFoundError } from "../tools/errors.js";
import { inCliTerms } from "./cli-wording.js";

/** An error the CLI reports on stderr with a chosen exit code (2: usage or input, 1: the tool or run failed). */
export class CliError extends Error {
  override name = "CliError";
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 2,
  ) {
    super(message);
  }
}

/** Print an error the way every command does, and return the exit code to use. */
export function reportCliError(error: unknown): number {
  if (error instanceof CliError) {
    process.stderr.write(`toolbridge: ${inCliTerms(error.message)}\n`);
    return error.exitCode;
  }
  if (
    error instanceof ConfigError ||
    error instanceof ToolNotFoundError ||
    error instanceof ToolDefinitionError
  ) {
    process.stderr.write(`toolbridge: ${inCliTerms(error.message)}\n`);
    return 2;
  }
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`toolbridge: unexpected error: ${inCliTerms(message)}\n`);
  return 1;
}

/** Run a command body, turning thrown errors into a message and exit code. */
export async function runCommand(body: () => Promise<number | undefined>): Promise<void> {
  try {
    process.exitCode = (await body()) ?? 0;
  } catch (error) {
    process.exitCode = reportCliError(error);
  }
}

export function parseJsonOption(text: string, optionName: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CliError(`${optionName} is not valid JSON: ${(error as Error).message}`);
  }
}
