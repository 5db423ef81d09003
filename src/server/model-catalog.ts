import type { LanguageModel, ModelEvent, ModelRequest } from "../core/language-model.js";
import { ToolbridgeError } from "../core/toolbridge-error.js";
import { Semaphore } from "../tools/semaphore.js";

/** Generations of one local model at once by default: what 2 CPU cores serve without slowing every stream down. */
export const DEFAULT_LOCAL_MAX_CONCURRENT = 2;
/** Remote servers do their own scheduling; this only bounds what one toolbridge sends them at once. */
export const DEFAULT_REMOTE_MAX_CONCURRENT = 8;
export const DEFAULT_MAX_QUEUED = 32;

/** The client asked for a model the server does not have. */
export class ModelNotFoundError extends ToolbridgeError {
  override name = "ModelNotFoundError";
  constructor(
    readonly model: string,
    readonly available: readonly string[],
  ) {
    super(`The model "${model}" does not exist on this server. Available: ${available.join(", ")}.`);
  }
}

/** Every generation slot of the model is busy and its queue is full: try again shortly. */
export class ModelBusyError extends ToolbridgeError {
  override name = "ModelBusyError";
}

export interface ModelCatalogEntry {
  /**
   * Makes the model; called once, at the first request for it (a failure is retried at the next request).
   * `onLoadProgress` (0…1) reaches every caller waiting for it (a GGUF reports it; others need not).
   */
  create(onLoadProgress: (progress: number) => void): Promise<LanguageModel>;
  /** Generations at once (each on its own context sequence for a GGUF). Default 2. */
  maxConcurrent?: number;
  /** Requests that may wait for a slot; one more gets ModelBusyError at once. Default 32. */
  maxQueued?: number;
  /** `owned_by` in `GET /v1/models`, e.g. `llama` or `openai`. */
  ownedBy?: string;
  /**
   * The only tools a run of this model is offered (the agent's `allow`), e.g. the bundled demo model's training
   * catalogue; undefined offers every tool. Requests to /v1 bring their own tools and are not affected.
   */
  runTools?: readonly string[];
}

interface Slot {
  entry: ModelCatalogEntry;
  gate: Semaphore;
  maxQueued: number;
  model?: Promise<LanguageModel>;
  /** `model` is made: nothing to wait for. */
  loaded: boolean;
  /** Who waits for the model being made, for its progress. */
  progress: Set<(progress: number) => void>;
}

/**
 * The named models a server offers (`GET /v1/models`, the `model` of a chat request, the run API's `model`). Each is
 * created lazily, once, and shared by every request; its generations pass one gate, so at most `maxConcurrent` run
 * at once and at most `maxQueued` wait — a flood gets a clear "busy" error instead of exhausting memory or threads.
 */
export class ModelCatalog {
  readonly defaultName: string;
  readonly #slots = new Map<string, Slot>();

  constructor(entries: Readonly<Record<string, ModelCatalogEntry>>, defaultName?: string) {
    for (const [name, entry] of Object.entries(entries)) {
      this.#slots.set(name, {
        entry,
        gate: new Semaphore(entry.maxConcurrent ?? DEFAULT_LOCAL_MAX_CONCURRENT),
        maxQueued: entry.maxQueued ?? DEFAULT_MAX_QUEUED,
        loaded: false,
        progress: new Set(),
      });
    }
    const first = this.#slots.keys().next().value;
    if (first === undefined) throw new RangeError("A model catalog needs at least one model.");
    if (defaultName !== undefined && !this.#slots.has(defaultName))
      throw new RangeError(`The default model "${defaultName}" is not in the catalog.`);
    this.defaultName = defaultName ?? first;
  }

  /** The tools a run of `name` may be offered (see ModelCatalogEntry.runTools); undefined: every tool. */
  runToolsOf(name: string): readonly string[] | undefined {
    return this.#slots.get(name)?.entry.runTools;
  }

  names(): string[] {
    return [...this.#slots.keys()];
  }

  has(name: string): boolean {
    return this.#slots.has(name);
  }

  ownedBy(name: string): string {
    return this.#slots.get(name)?.entry.ownedBy ?? "toolbridge";
  }

  /** Generations running and waiting for a model, for status displays and tests. */
  load(name: string): { active: number; waiting: number } {
    const slot = this.#slot(name);
    return { active: slot.gate.active, waiting: slot.gate.waiting };
  }

  /** Whether the model is made (a GGUF loaded): `get` answers at once. */
  isLoaded(name: string): boolean {
    return this.#slot(name).loaded;
  }

  /**
   * The model (the default when no name is given), created at the first call; unknown names throw ModelNotFoundError.
   * `onLoadProgress` hears the progress (0…1) of the load under way, whichever call started it.
   */
  async get(
    name?: string,
    options: { onLoadProgress?: (progress: number) => void } = {},
  ): Promise<LanguageModel> {
    const key = name ?? this.defaultName;
    const slot = this.#slot(key);
    if (options.onLoadProgress && !slot.loaded) slot.progress.add(options.onLoadProgress);
    if (!slot.model) {
      const report = (progress: number) => {
        for (const listener of slot.progress) listener(progress);
      };
      const created = slot.entry.create(report).then((model) => gated(model, key, slot));
      slot.model = created;
      created.then(
        () => {
          if (slot.model === created) slot.loaded = true;
          slot.progress.clear();
        },
        () => {
          if (slot.model === created) slot.model = undefined;
          slot.progress.clear();
        },
      );
    }
    return slot.model;
  }

  #slot(name: string): Slot {
    const slot = this.#slots.get(name);
    if (!slot) throw new ModelNotFoundError(name, this.names());
    return slot;
  }
}

/** The model with its generations passed through the slot's gate. Other members (load, protocol…) stay reachable. */
function gated(model: LanguageModel, name: string, slot: Slot): LanguageModel {
  async function* stream(request: ModelRequest): AsyncIterable<ModelEvent> {
    if (slot.gate.active >= slot.gate.limit && slot.gate.waiting >= slot.maxQueued) {
      throw new ModelBusyError(
        `The model "${name}" is busy: ${slot.gate.active} generation(s) running and ${slot.gate.waiting} waiting, ` +
          "the most it queues. Retry in a moment, or raise maxConcurrent/maxQueued for it in the config.",
      );
    }
    const release = await slot.gate.acquire(request.signal);
    try {
      yield* model.stream(request);
    } finally {
      release();
    }
  }
  return new Proxy(model, {
    get(target, property) {
      if (property === "stream") return stream;
      const value = Reflect.get(target, property, target);
      return typeof value === "function" && property !== "constructor" ? value.bind(target) : value;
    },
  }) as LanguageModel;
}
