import { request as httpRequest } from "node:http";
import { Readable } from "node:stream";

/**
 * A `fetch` whose connections leave from `localAddress` — on Linux all of 127.0.0.0/8 is loopback, so 127.0.0.2,
 * 127.0.0.3, … are distinct clients of a server on 127.0.0.1, as other machines would be. The global fetch cannot
 * bind its socket; this one is node:http underneath and streams the response body (SSE works), which is all the MCP
 * SDK clients need of it.
 */
export function fetchFromAddress(localAddress: string) {
  return async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const request = input instanceof Request ? input : undefined;
    const url = new URL(request ? request.url : input.toString());
    const headers = new Headers(init.headers ?? request?.headers);
    const body =
      init.body !== undefined && init.body !== null
        ? Buffer.from(await new Response(init.body).arrayBuffer())
        : undefined;
    if (body) headers.set("content-length", String(body.length));
    return new Promise<Response>((resolve, reject) => {
      const outgoing = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname + url.search,
          method: init.method ?? request?.method ?? "GET",
          headers: Object.fromEntries(headers),
          localAddress,
          ...(init.signal ? { signal: init.signal } : {}),
        },
        (incoming) => {
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(incoming.headers)) {
            if (value === undefined) continue;
            for (const one of Array.isArray(value) ? value : [value]) responseHeaders.append(name, one);
          }
          const status = incoming.statusCode ?? 500;
          const noBody = status === 204 || status === 304 || init.method === "HEAD";
          resolve(
            new Response(noBody ? null : (Readable.toWeb(incoming) as ReadableStream<Uint8Array>), {
              status,
              headers: responseHeaders,
            }),
          );
        },
      );
      outgoing.on("error", reject);
      outgoing.end(body);
    });
  };
}
