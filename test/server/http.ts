import { request as httpRequest } from "node:http";

export interface RawResponse {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
  /** The body parsed as JSON (undefined when it is not JSON); tests read it freely. */
  // biome-ignore lint/suspicious/noExplicitAny: response bodies of many shapes, checked by the tests' expectations.
  json: any;
}

/**
 * A raw HTTP request, so that Host, Origin and Cookie are exactly what a browser or an attacker would send (fetch
 * would set or forbid some of them).
 */
export function send(
  url: string,
  options: {
    method?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    chunked?: boolean;
  } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    let responded = false;
    const target = new URL(url);
    const req = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname + target.search,
        method: options.method ?? (options.body === undefined ? "GET" : "POST"),
        headers: {
          ...(options.body === undefined ? {} : { "content-type": "application/json" }),
          ...options.headers,
        },
      },
      (res) => {
        responded = true;
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const body = Buffer.concat(chunks).toString("utf8");
          let json: unknown;
          try {
            json = JSON.parse(body);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, body, headers: res.headers, json });
        });
      },
    );
    // A server may answer (413) before it has read the whole body and then drop the connection: keep the answer.
    req.on("error", (error) => {
      if (!responded) reject(error);
    });
    if (options.body !== undefined) {
      if (options.chunked) {
        const body = Buffer.from(options.body);
        for (let i = 0; i < body.length; i += 64 * 1024) req.write(body.subarray(i, i + 64 * 1024));
      } else {
        req.setHeader("content-length", Buffer.byteLength(options.body));
        req.write(options.body);
      }
    }
    req.end();
  });
}

export { waitFor } from "../helpers/wait-for.js";
