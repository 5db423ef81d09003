import { ToolbridgeError } from "../core/toolbridge-error.js";

/** A database that cannot be opened (unwritable folder, unreachable server, schema from a newer toolbridge …). */
export class StoreOpenError extends ToolbridgeError {
  override name = "StoreOpenError";
}
