import { api } from "../api/http.js";
import type { ModelList } from "../api/types.js";
import { Store } from "./external-store.js";

export const modelsStore = new Store<ModelList | undefined>(undefined);

export async function loadModels(): Promise<void> {
  try {
    modelsStore.set(await api<ModelList>("/api/models"));
  } catch {
    // A server without the Runs API has no models: the chat says so.
  }
}
