import { z } from "zod";

/** The model backends a config file can name (`replay:` is a CLI/test device, not something to configure). */
export const MODEL_PROVIDERS = ["llama", "openai", "completions", "anthropic"] as const;
export type ModelProvider = (typeof MODEL_PROVIDERS)[number];

const TOOL_CHOICE_KEYWORDS = ["auto", "required", "none"] as const;

/**
 * `"auto" | "required" | "none"`, `{"name": "calculator"}`, or a bare tool name (as on the command line). Whether the
 * named tool exists is checked when a run starts, against the tools actually offered.
 */
export const toolChoiceConfigSchema = z.union([
  z.enum(TOOL_CHOICE_KEYWORDS),
  z.strictObject({ name: z.string().min(1, "the tool name must not be empty") }),
  z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,128}$/, 'must be "auto", "required", "none" or a tool name')
    .transform((name) => ({ name })),
]);

/** Settings every backend understands. */
const common = {
  /** Tool-call format id for text-protocol mode (e.g. `hermes`); setting it selects text-protocol mode. */
  protocol: z.string().min(1).optional(),
  /** Force native tools (true) or a text protocol (false); default: native where the backend has it. */
  nativeTools: z.boolean().optional(),
  toolChoice: toolChoiceConfigSchema.optional(),
  maxTokens: z.number().int().positive().optional(),
  seed: z.number().int().min(0).optional(),
  /**
   * `serve`: generations of this model running at once (each on its own context sequence); more requests wait in a
   * queue. Default 2 for a local GGUF (what 2 cores serve well), 8 for a remote server.
   */
  maxConcurrent: z.number().int().min(1).max(64).optional(),
  /** `serve`: requests that may wait for a free slot; beyond that they get 503 at once. Default 32. */
  maxQueued: z.number().int().min(0).max(10_000).optional(),
};

/**
 * The model name the server knows: `modelName`, spelt as `--model-name` and TOOLBRIDGE_MODEL_NAME are; `name` is its
 * older spelling, still read (one of the two, not both).
 */
const modelName = {
  modelName: z.string().min(1).optional(),
  name: z.string().min(1).optional(),
};

const apiKeyEnv = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be the name of an environment variable, not the key itself")
  .optional();

export const llamaModelConfigSchema = z.strictObject({
  provider: z.literal("llama"),
  /** A .gguf file; relative paths are resolved against the config file's folder. */
  path: z.string().min(1, "give the path of a .gguf model file"),
  /** CPU threads; default chosen from the cores available. */
  threads: z.number().int().positive().optional(),
  /**
   * Text mode: hold plain string arguments to the words of the conversation (tool results and the tools' schemas
   * included). Default: on for models under 50M parameters.
   */
  copyArguments: z.boolean().optional(),
  /**
   * Text mode: in an answer after a tool result, a word of the result the model begins is written out whole. Default:
   * on for models under 50M parameters.
   */
  copyWords: z.boolean().optional(),
  /**
   * Text-protocol mode: constrain each call's body with a grammar made from the tools' schemas (default true). `false`
   * lets the model write calls freely (what `toolbridge eval --protocol all` may recommend for some models).
   */
  grammar: z.boolean().optional(),
  ...common,
});

export const openaiModelConfigSchema = z.strictObject({
  provider: z.literal("openai"),
  /** Default: OPENAI_BASE_URL, else https://api.openai.com/v1. */
  baseUrl: z.url().optional(),
  /** Required: `modelName` (or `name`). */
  ...modelName,
  apiKeyEnv,
  ...common,
});

export const completionsModelConfigSchema = z.strictObject({
  provider: z.literal("completions"),
  baseUrl: z.url(),
  ...modelName,
  /** A built-in template name (`chatml`, `qwen2.5`…), a tokenizer_config.json, or a .gguf whose template to use. */
  chatTemplate: z.string().min(1).optional(),
  apiKeyEnv,
  ...common,
});

export const anthropicModelConfigSchema = z.strictObject({
  provider: z.literal("anthropic"),
  /** Default: ANTHROPIC_BASE_URL, else https://api.anthropic.com. */
  baseUrl: z.url().optional(),
  ...modelName,
  apiKeyEnv,
  ...common,
});

/** `"model"` in toolbridge.config.json: which model `run` and `chat` use when no flag or environment variable says. */
export const modelConfigSchema = z
  .discriminatedUnion(
    "provider",
    [
      llamaModelConfigSchema,
      openaiModelConfigSchema,
      completionsModelConfigSchema,
      anthropicModelConfigSchema,
    ],
    { error: `"provider" must be one of ${MODEL_PROVIDERS.join(", ")}` },
  )
  .refine((m) => !(m.provider === "completions" && m.nativeTools === true), {
    message:
      "the completions backend has no native tools (it is text-only); remove nativeTools or set it to false",
    path: ["nativeTools"],
  })
  .refine((m) => !("name" in m && m.name !== undefined && m.modelName !== undefined), {
    message: 'give the model name once, as "modelName" ("name" is its older spelling)',
    path: ["name"],
  })
  .refine((m) => m.provider !== "openai" || (m.modelName ?? m.name) !== undefined, {
    message: 'the openai backend needs the model name the server knows: "modelName", e.g. "qwen2.5:7b"',
    path: ["modelName"],
  });

export type ModelConfig = z.output<typeof modelConfigSchema>;

/** A name clients send as `model` (OpenAI's /v1): letters, digits and `._:/-`, like `qwen2.5:7b` or `org/model`. */
export const modelNameSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/,
    "a model name is 1-128 letters, digits and . _ : / - (starting with a letter or digit)",
  );

/** `"models"` in toolbridge.config.json: named models `serve` offers at /v1 (and the run API), each like `"model"`. */
export const namedModelsConfigSchema = z
  .record(modelNameSchema, modelConfigSchema)
  .refine((models) => Object.keys(models).length > 0, {
    message: "name at least one model, or leave out `models`",
  });
