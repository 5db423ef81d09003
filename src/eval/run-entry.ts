import type { Tool } from "@modelcontextprotocol/server";
import { type CollectedTurn, collectModelTurn } from "../agent/collect-model-turn.js";
import type { AgentMessage } from "../core/agent-message.js";
import type { LanguageModel } from "../core/language-model.js";
import { validateToolInput } from "../tools/validate-tool-input.js";
import { checkEntry, type ModelCall } from "./ast-checker.js";
import type { BfclCase, BfclCategory } from "./bfcl-dataset.js";
import { entryTools } from "./entry-tools.js";
import type { CheckFailure } from "./failure-class.js";

/** How entries are asked; the same for every entry of a run. */
export interface EntryRunSettings {
  /** Ask again (with the error, as the agent loop does) when a turn's calls are unreadable or fail their schema. */
  reask: number;
  /** Count calls whose text had to be mended (jsonrepair, unclosed markup) as read; `false` counts them unreadable. */
  repair: boolean;
  /** Time for one entry, every re-ask included. */
  timeoutMs: number;
  maxTokens?: number;
  /** Sampling temperature for every turn (the CLI's default is 0: greedy, as benchmarks are run). */
  temperature?: number;
  /**
   * `auto` (default, as BFCL asks): the model decides whether to call. `required` forces a call on every entry (so the
   * irrelevance categories cannot pass): a way to measure argument quality alone.
   */
  toolChoice?: "auto" | "required";
}

/** One entry's outcome, as the report and its journal keep it. */
export interface EntryResult {
  id: string;
  category: BfclCategory;
  passed: boolean;
  failure?: CheckFailure;
  /** The calls of the scored turn, named as the entry names its functions. */
  calls: ModelCall[];
  /** The scored turn's text, cut at 300 characters. */
  text?: string;
  /** Calls made in the scored turn (unreadable ones included), and of them readable, schema-valid and mended ones. */
  callsMade: number;
  callsReadable: number;
  callsSchemaValid: number;
  callsRepaired: number;
  /** Turns asked again. */
  reasks: number;
  inputTokens?: number;
  outputTokens?: number;
  ms: number;
  /** The backend's failure, when the entry could not be asked (`failure.class` is then `model-error`). */
  error?: string;
}

function messagesOf(bfclCase: BfclCase): AgentMessage[] {
  const messages: AgentMessage[] = [];
  for (const turn of bfclCase.entry.question) {
    for (const message of turn) {
      const content = typeof message.content === "string" ? message.content : JSON.stringify(message.content);
      if (message.role === "system") messages.push({ role: "system", content });
      else if (message.role === "assistant") messages.push({ role: "assistant", content });
      else messages.push({ role: "user", content });
    }
  }
  return messages;
}

interface ReadTurn {
  calls: ModelCall[];
  unreadable: string[];
  made: number;
  schemaValid: number;
  repaired: number;
  /** What to tell the model about each problem, to ask again. */
  problems: Map<string, string>;
}

function readTurn(
  turn: CollectedTurn,
  tools: readonly Tool[],
  originalName: ReadonlyMap<string, string>,
  repair: boolean,
): ReadTurn {
  const read: ReadTurn = {
    calls: [],
    unreadable: [...turn.parseErrors],
    made: turn.calls.length + turn.parseErrors.length,
    schemaValid: 0,
    repaired: 0,
    problems: new Map(),
  };
  for (const call of turn.calls) {
    if (call.repaired) read.repaired++;
    if (call.error !== undefined) {
      read.unreadable.push(`${call.name || "a call"}: ${call.error}`);
      read.problems.set(call.id, `The call could not be read: ${call.error}`);
      continue;
    }
    if (call.repaired && !repair) {
      read.unreadable.push(`${call.name}: its text had to be repaired to be read (repair is off)`);
      read.problems.set(call.id, "The call's arguments are not valid JSON. Write them as one JSON object.");
      continue;
    }
    read.calls.push({ name: originalName.get(call.name) ?? call.name, arguments: call.arguments });
    const tool = tools.find((t) => t.name === call.name);
    if (!tool) {
      read.problems.set(
        call.id,
        `Unknown tool "${call.name}". Available: ${tools.map((t) => t.name).join(", ") || "none"}.`,
      );
      continue;
    }
    const validation = validateToolInput(tool, call.arguments);
    if (validation.ok) read.schemaValid++;
    else read.problems.set(call.id, `Invalid arguments for ${call.name}:\n${validation.issues.join("\n")}`);
  }
  return read;
}

/** The transcript that asks again: the turn, an error for each faulty call, the others marked not run. */
function reaskMessages(turn: CollectedTurn, read: ReadTurn): AgentMessage[] {
  const messages: AgentMessage[] = [
    {
      role: "assistant",
      content: turn.text,
      ...(turn.calls.length
        ? { toolCalls: turn.calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })) }
        : {}),
    },
  ];
  for (const call of turn.calls) {
    const problem = read.problems.get(call.id);
    messages.push({
      role: "tool",
      callId: call.id,
      name: call.name,
      result: {
        isError: true,
        content: [
          {
            type: "text",
            text:
              problem ??
              "Not run: another call of this turn was invalid. Write every call of your answer again, corrected.",
          },
        ],
      },
    });
  }
  if (turn.parseErrors.length) {
    messages.push({
      role: "user",
      content: `[tool call error] ${turn.parseErrors.join(" ")} Write the tool call again in the required format, or answer without it.`,
    });
  }
  return messages;
}

function cut(text: string): string | undefined {
  if (text === "") return undefined;
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

/**
 * Ask the model one BFCL entry — its messages, its functions as tools, tool choice `auto`, one turn — and score the
 * answer with BFCL's AST rules. With `reask`, a turn whose calls are unreadable, unknown or fail their schema is
 * answered with the errors (as the agent loop does) and the model's next turn is scored instead.
 */
export async function runEntry(input: {
  model: LanguageModel;
  bfclCase: BfclCase;
  settings: EntryRunSettings;
  signal?: AbortSignal;
}): Promise<EntryResult> {
  const { model, bfclCase, settings } = input;
  const { entry, category } = bfclCase;
  const started = performance.now();
  const { tools, originalName } = entryTools(entry.function, category);
  const messages = messagesOf(bfclCase);
  const signal = AbortSignal.any([
    AbortSignal.timeout(settings.timeoutMs),
    ...(input.signal ? [input.signal] : []),
  ]);
  let ids = 0;
  let inputTokens: number | undefined;
  let outputTokens: number | undefined;
  let reasks = 0;
  try {
    for (;;) {
      const turn = await collectModelTurn(
        model,
        {
          messages,
          tools,
          toolChoice: settings.toolChoice ?? "auto",
          signal,
          ...(settings.maxTokens !== undefined ? { maxTokens: settings.maxTokens } : {}),
          ...(settings.temperature !== undefined ? { sampling: { temperature: settings.temperature } } : {}),
        },
        {
          onText: () => {},
          onReasoning: () => {},
          onCallStart: () => {},
          onCallArgsDelta: () => {},
          newId: () => `call_${++ids}`,
        },
      );
      if (turn.usage?.inputTokens !== undefined) inputTokens = (inputTokens ?? 0) + turn.usage.inputTokens;
      if (turn.usage?.outputTokens !== undefined)
        outputTokens = (outputTokens ?? 0) + turn.usage.outputTokens;
      const read = readTurn(turn, tools, originalName, settings.repair);
      const faulty = read.problems.size > 0 || turn.parseErrors.length > 0;
      if (faulty && reasks < settings.reask) {
        reasks++;
        messages.push(...reaskMessages(turn, read));
        continue;
      }
      const check = checkEntry({
        category,
        entry,
        answer: bfclCase.answer,
        output: { calls: read.calls, unreadable: read.unreadable },
      });
      const text = cut(turn.text);
      return {
        id: entry.id,
        category,
        passed: check.passed,
        ...(check.passed ? {} : { failure: check.failure }),
        calls: read.calls,
        ...(text !== undefined ? { text } : {}),
        callsMade: read.made,
        callsReadable: read.calls.length,
        callsSchemaValid: read.schemaValid,
        callsRepaired: read.repaired,
        reasks,
        ...(inputTokens !== undefined ? { inputTokens } : {}),
        ...(outputTokens !== undefined ? { outputTokens } : {}),
        ms: Math.round(performance.now() - started),
      };
    }
  } catch (error) {
    if (input.signal?.aborted) throw input.signal.reason;
    const timedOut = signal.aborted && !input.signal?.aborted;
    const message = timedOut
      ? `no answer within ${settings.timeoutMs} ms`
      : error instanceof Error
        ? error.message
        : String(error);
    return {
      id: entry.id,
      category,
      passed: false,
      failure: { class: "model-error", message },
      calls: [],
      callsMade: 0,
      callsReadable: 0,
      callsSchemaValid: 0,
      callsRepaired: 0,
      reasks,
      ms: Math.round(performance.now() - started),
      error: message,
    };
  }
}
