import type { MiddlewareHandler } from "hono";
import { HttpError } from "../http-error.js";

/** Query parameters that carry credentials in other servers' URLs. */
const CREDENTIAL_PARAMETERS = ["token", "access_token", "api_key", "apikey", "auth"];

/**
 * Refuse credentials in a URL (400), whether or not they are right: URLs end up in logs, browser history, proxies and
 * Referer headers, so a token there leaks. Refusing rather than ignoring tells the client at once what to fix.
 */
export function rejectTokenInUrl(): MiddlewareHandler {
  return async (c, next) => {
    const query = c.req.url.indexOf("?");
    if (query !== -1) {
      const params = new URLSearchParams(c.req.url.slice(query + 1));
      const found = CREDENTIAL_PARAMETERS.find((name) => params.has(name));
      if (found !== undefined) {
        throw new HttpError(
          400,
          `Bad Request: credentials are never accepted in a URL (?${found}=…): URLs end up in logs and browser history. ` +
            "Send Authorization: Bearer <token>, or in a browser sign in with POST /api/session; and change the token if it was real.",
          { code: "token_in_url" },
        );
      }
    }
    await next();
  };
}
