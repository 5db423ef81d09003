import type { Socket } from "node:net";

/**
 * Count what a WebSocket's connection receives on the wire until it has authenticated, and call `exceeded` once past
 * `budget` bytes (the reading is paused first, so nothing more arrives). `ws` offers a message limit per server only
 * (`maxPayload`), the same for every socket; the much smaller allowance of a socket nobody has vouched for yet is
 * counted here, chunk by chunk as the bytes arrive, so a huge frame is cut off after a few KiB instead of read.
 * Watch after `ws` has taken the socket: a `data` listener added earlier would start the flow before it listens.
 */
export function watchUnauthenticatedBytes(
  socket: Socket,
  options: { budget: number; authenticated: () => boolean; exceeded: () => void },
): void {
  let received = 0;
  const stop = () => {
    socket.off("data", onData);
  };
  function onData(chunk: Buffer): void {
    // `ws` reads each chunk first: an `auth` message in it has been handled by now.
    if (options.authenticated()) {
      stop();
      return;
    }
    received += chunk.length;
    if (received <= options.budget) return;
    stop();
    socket.pause();
    options.exceeded();
  }
  socket.on("data", onData);
  socket.once("close", stop);
}
