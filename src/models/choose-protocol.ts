import { detectProtocol } from "../protocols/detect-protocol.js";
import type { ToolCallProtocol } from "../protocols/protocol.js";
import { getProtocol } from "../protocols/protocol-registry.js";

/** The format most open chat models are tuned on, and the one a model with no recognisable template gets. */
export const FALLBACK_PROTOCOL = "hermes";

/**
 * The text protocol a backend in text mode uses: the one named (an id or a protocol object), else the one its chat
 * template or model name reveals (`detectProtocol`), else Hermes.
 */
export function chooseProtocol(options: {
  protocol?: string | ToolCallProtocol | undefined;
  chatTemplate?: string | undefined;
  modelName?: string | undefined;
}): ToolCallProtocol {
  if (options.protocol !== undefined)
    return typeof options.protocol === "string" ? getProtocol(options.protocol) : options.protocol;
  const detected = detectProtocol({
    ...(options.chatTemplate !== undefined ? { chatTemplate: options.chatTemplate } : {}),
    ...(options.modelName !== undefined ? { modelName: options.modelName } : {}),
  });
  return getProtocol(detected.implemented ? detected.id : FALLBACK_PROTOCOL);
}
