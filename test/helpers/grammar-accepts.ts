import { type Llama, type LlamaGrammar, LlamaGrammarEvaluationState, type LlamaModel } from "node-llama-cpp";

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
