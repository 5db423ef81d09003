import type { MiddlewareHandler } from "hono";
import { HttpError } from "./http-error.js";

/** Bytes of an oversized body still read (and discarded) so the client can finish sending and see the 413. */
const MAX_DISCARD_BYTES = 64 * 1024 * 1024;

function tooLarge(maxBytes: number): HttpError {
  return new HttpError(413, `Payload Too Large: request bodies are limited to ${maxBytes} bytes.`, {
    code: "payload_too_large",
    // Closing the connection stops a client that is still sending from reusing a half-read connection.
    headers: { connection: "close" },
  });
}

/**
 * Reject request bodies over `maxBytes` with 413 — by Content-Length when declared, else while streaming (chunked
 * uploads). An oversized streamed body is drained in the background rather than cut off: a client still writing
 * would otherwise get a connection reset instead of the 413.
 */
export function bodySizeLimit(maxBytes: number): MiddlewareHandler {
  if (!Number.isInteger(maxBytes) || maxBytes < 1)
    throw new RangeError(`maxBytes must be a positive integer, got ${maxBytes}.`);
  return async (c, next) => {
    const raw = c.req.raw;
    if (!raw.body) return next();
    const declared = raw.headers.get("content-length");
    if (declared !== null && !raw.headers.has("transfer-encoding")) {
      if (Number.parseInt(declared, 10) > maxBytes) throw tooLarge(maxBytes);
      return next();
    }
    const reader = raw.body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        void (async () => {
          let discarded = size;
          try {
            for (;;) {
              const next = await reader.read();
              if (next.done) return;
              discarded += next.value.byteLength;
              if (discarded > MAX_DISCARD_BYTES) return void (await reader.cancel());
            }
          } catch {
            // The client went away; nothing left to drain.
          }
        })();
        throw tooLarge(maxBytes);
      }
      chunks.push(value);
    }
    const body = new Uint8Array(size);
    let offset = 0;
    for (const chunk of chunks) {
      body.set(chunk, offset);
      offset += chunk.byteLength;
    }
    c.req.raw = new Request(raw, { body });
    await next();
  };
}
