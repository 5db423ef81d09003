import { BUILTIN_PROTOCOLS } from "./formats/index.js";
import type { ToolCallProtocol } from "./protocol.js";
import { ProtocolNotImplementedError, UnknownProtocolError } from "./protocol-errors.js";
import { KNOWN_PROTOCOL_IDS, PLANNED_PROTOCOL_IDS } from "./protocol-ids.js";

const registry = new Map<string, ToolCallProtocol>(BUILTIN_PROTOCOLS.map((p) => [p.id, p]));

/** The protocol for a format id. Throws `UnknownProtocolError` or `ProtocolNotImplementedError`. */
export function getProtocol(id: string): ToolCallProtocol {
  const p = registry.get(id);
  if (p) return p;
  if ((PLANNED_PROTOCOL_IDS as readonly string[]).includes(id)) {
    throw new ProtocolNotImplementedError(id, [...registry.keys()]);
  }
  throw new UnknownProtocolError(id, KNOWN_PROTOCOL_IDS);
}

/** Every registered (implemented) protocol, in registration order. */
export function listProtocols(): ToolCallProtocol[] {
  return [...registry.values()];
}

export function hasProtocol(id: string): boolean {
  return registry.has(id);
}

/** Adds a protocol (e.g. an application's own format). Replacing a registered id needs `replace: true`. */
export function registerProtocol(protocol: ToolCallProtocol, opts: { replace?: boolean } = {}): void {
  if (registry.has(protocol.id) && !opts.replace) {
    throw new Error(
      `A tool-call protocol "${protocol.id}" is already registered; pass { replace: true } to replace it.`,
    );
  }
  registry.set(protocol.id, protocol);
}
