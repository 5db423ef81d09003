import { type CallBodyConfig, CallBodyRegion, jsonScannerFactory } from "../core/call-body-region.js";
import { namedArgumentsDecoder } from "../core/named-arguments-decoder.js";
import type { EngineContext } from "../core/stream-engine.js";

export interface NamedArgumentsRegionOptions
  extends Pick<CallBodyConfig, "opener" | "example" | "what" | "endMarker" | "closer" | "valueStart">,
    Partial<Pick<CallBodyConfig, "createScanner">> {
  /** The call id the text carries (Mistral's `[CALL_ID]`); a fresh one otherwise. */
  id?: string;
}

/**
 * The JSON arguments of a call whose marker already named it (`<function=name>`, `>>>name\n`,
 * `[TOOL_CALLS]name[ARGS]`, `||call: name(`, `to=functions.name`): the call starts at once, text that is not
 * an arguments object is an error, and the object is decoded leniently.
 */
export function namedArgumentsRegion(
  ctx: EngineContext,
  name: string,
  { id, createScanner = jsonScannerFactory, ...cfg }: NamedArgumentsRegionOptions,
): CallBodyRegion {
  return new CallBodyRegion(ctx, {
    ...cfg,
    namedCall: { ...ctx.startCall(name, id), name },
    onNonValue: "error",
    createScanner,
    decode: namedArgumentsDecoder(name),
  });
}
