export * from "./converters/index.js";
export { type DetectedProtocol, type DetectProtocolInput, detectProtocol } from "./detect-protocol.js";
export { BUILTIN_PROTOCOLS } from "./formats/index.js";
export { collectParseResult, parseToolCalls } from "./parse-tool-calls.js";
export type { ToolCallProtocol } from "./protocol.js";
export { ProtocolNotImplementedError, UnknownProtocolError } from "./protocol-errors.js";
export { KNOWN_PROTOCOL_IDS, PLANNED_PROTOCOL_IDS, type ProtocolId } from "./protocol-ids.js";
export { getProtocol, hasProtocol, listProtocols, registerProtocol } from "./protocol-registry.js";
export type * from "./types.js";
