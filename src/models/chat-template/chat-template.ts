import { Template } from "@huggingface/jinja";
import type { Tool } from "@modelcontextprotocol/server";
import { toolToFunctionJson } from "../../protocols/core/render-helpers.js";
import type { TemplateMessage } from "../message-converters/template-messages.js";
import { ModelConfigError } from "../model-errors.js";

export class ChatTemplateError extends ModelConfigError {
  override name = "ChatTemplateError";
}

export interface RenderChatTemplateInput {
  messages: readonly TemplateMessage[];
  /** Tools for templates that render them themselves (passed as `{"type":"function","function":{…}}`). */
  tools?: readonly Tool[];
  /** Append the assistant header so the model writes the next turn. Default true. */
  addGenerationPrompt?: boolean;
  /** Extra template variables, e.g. `{ enable_thinking: false }` for Qwen3. */
  variables?: Record<string, unknown>;
}

export interface ChatTemplateOptions {
  /** Shown in errors, e.g. `qwen2.5` or the file the template came from. */
  name?: string;
  /**
   * The text the template writes for `bos_token`. Default `""`: completion servers (llama.cpp, mlx_lm) add BOS
   * themselves when they tokenize the prompt, and a BOS written as text too would be doubled.
   */
  bosToken?: string;
  eosToken?: string;
}

/** Markers that end a turn in common templates: a completion must stop at them even if the server does not. */
const TURN_END_MARKERS = [
  "<|im_end|>",
  "<|eot_id|>",
  "<|eom_id|>",
  "<end_of_turn>",
  "<|end|>",
  "<|endoftext|>",
  "</s>",
];

/** A Jinja chat template (transformers dialect) rendered on the client with `@huggingface/jinja`. */
export class ChatTemplate {
  readonly name: string;
  readonly source: string;
  readonly bosToken: string;
  readonly eosToken: string;
  readonly #compiled: Template;

  constructor(source: string, options: ChatTemplateOptions = {}) {
    this.name = options.name ?? "chat template";
    this.source = source;
    this.bosToken = options.bosToken ?? "";
    this.eosToken = options.eosToken ?? "";
    try {
      this.#compiled = new Template(source);
    } catch (error) {
      throw new ChatTemplateError(
        `The chat template "${this.name}" does not parse as Jinja: ${(error as Error).message}. Use a built-in template (e.g. "chatml", "qwen2.5") or fix the template.`,
      );
    }
  }

  /** Whether the template renders a tool list itself (it reads a `tools` variable). */
  get rendersTools(): boolean {
    return /\btools\b/.test(this.source);
  }

  /** End-of-turn markers this template writes (client-side stop sequences for raw completions). */
  get turnEndMarkers(): string[] {
    const found = TURN_END_MARKERS.filter((m) => this.source.includes(m));
    if (this.eosToken && !found.includes(this.eosToken)) found.push(this.eosToken);
    return found;
  }

  render(input: RenderChatTemplateInput): string {
    const variables: Record<string, unknown> = {
      ...input.variables,
      messages: input.messages,
      add_generation_prompt: input.addGenerationPrompt ?? true,
      bos_token: this.bosToken,
      eos_token: this.eosToken,
    };
    if (input.tools && input.tools.length > 0) {
      variables.tools = input.tools.map((t) => ({ type: "function", function: toolToFunctionJson(t) }));
    }
    try {
      return this.#compiled.render(variables);
    } catch (error) {
      throw new ChatTemplateError(
        `The chat template "${this.name}" failed to render: ${(error as Error).message}`,
      );
    }
  }
}
