import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  getLlama,
  type Llama,
  type LlamaGrammar,
  LlamaGrammarEvaluationState,
  LlamaLogLevel,
  type LlamaModel,
} from "node-llama-cpp";
import { afterAll, beforeAll } from "vitest";
import { writeTestModel } from "../../src/models/gguf/make-test-model.js";

type Bindings = {
  AddonSampler: {
    canBeNextTokenForGrammarEvaluationState(state: unknown, token: number): boolean;
    acceptGrammarEvaluationStateToken(state: unknown, token: number): void;
  };
};

/**
 * Whether a compiled grammar accepts `text` whole, as generation would meet it: every token of the text may come next
 * in turn, then the end of generation may too (node-llama-cpp's own grammar state, through its bindings).
 */
export function grammarAccepts(
  llama: Llama,
  model: LlamaModel,
  grammar: LlamaGrammar,
  text: string,
): boolean {
  const bindings = (llama as unknown as { _bindings: Bindings })._bindings;
  const state = (new LlamaGrammarEvaluationState({ model, grammar }) as unknown as { _state: unknown })
    ._state;
  for (const token of model.tokenize(text, false)) {
    if (!bindings.AddonSampler.canBeNextTokenForGrammarEvaluationState(state, token)) return false;
    bindings.AddonSampler.acceptGrammarEvaluationStateToken(state, token);
  }
  return bindings.AddonSampler.canBeNextTokenForGrammarEvaluationState(state, model.tokens.eos as number);
}

/**
 * The llama and a random byte-level GGUF a grammar test compiles and checks grammars against, loaded before the file's
 * tests and removed after them. Read `llama` and `model` inside tests (they are set by then).
 */
export function loadGrammarTestModel(): {
  readonly llama: Llama;
  readonly model: LlamaModel;
  accepts(grammar: LlamaGrammar, text: string): boolean;
} {
  let llama: Llama | undefined;
  let model: LlamaModel | undefined;
  const dir = mkdtempSync(path.join(os.tmpdir(), "tb-grammar-"));
  beforeAll(async () => {
    const file = path.join(dir, "bytes.gguf");
    writeTestModel(file, { seed: 1 });
    llama = await getLlama({ gpu: false, build: "never", logLevel: LlamaLogLevel.error });
    model = await llama.loadModel({ modelPath: file });
  });
  afterAll(async () => {
    await model?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });
  const loaded = {
    get llama() {
      if (!llama) throw new Error("the grammar test model is loaded before the tests");
      return llama;
    },
    get model() {
      if (!model) throw new Error("the grammar test model is loaded before the tests");
      return model;
    },
    accepts: (grammar: LlamaGrammar, text: string) =>
      grammarAccepts(loaded.llama, loaded.model, grammar, text),
  };
  return loaded;
}
