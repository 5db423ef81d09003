import type { LanguageModel, LoadableModel, ModelEvent, ModelRequest } from "../../core/language-model.js";

/**
 * The named models runs may use (structural: the /v1 branch's ModelCatalog implements it from the config's `models`;
 * tests pass replay models through a small object of this shape). `get()` without a name gives the default one.
 */
export interface RunModels {
  names(): string[];
  readonly defaultName: string;
  /** The model, made (a GGUF loaded) at the first call; `onLoadProgress` hears a load under way (0…1). */
  get(name?: string, options?: { onLoadProgress?: (progress: number) => void }): Promise<LanguageModel>;
  /** Whether `get(name)` answers at once. Without it, a model counts as loaded once a `get` here resolved. */
  isLoaded?(name: string): boolean;
  /** The only tools a run of `name` is offered (the bundled demo model: those it was trained on); undefined: all. */
  runToolsOf?(name: string): readonly string[] | undefined;
}

/**
 * A run's handle on the model named `name`: there at once (runs start, and their id goes back, before anything is
 * loaded), made at the first run that needs it. The agent loads it before the run's first step (LoadableModel), so
 * the wait shows in that run's events and a model that cannot be made ends the run with the reason; the next run
 * asks again. Its id is the name runs are started with (`model` of POST /api/runs), as the run records keep it.
 */
export function modelOnDemand(models: RunModels, name: string): LoadableModel {
  let made: LanguageModel | undefined;
  const load = async (options: { onProgress?: (progress: number) => void } = {}) => {
    made ??= await models.get(name, options.onProgress ? { onLoadProgress: options.onProgress } : {});
    return made;
  };
  return {
    id: name,
    get loaded() {
      return made !== undefined || models.isLoaded?.(name) === true;
    },
    load,
    async *stream(request: ModelRequest): AsyncIterable<ModelEvent> {
      yield* (made ?? (await load())).stream(request);
    },
  };
}
