import { useEffect, useId, useState } from "react";
import { errorText } from "../api/http.js";
import { signIn } from "../state/session.js";

/**
 * The server has a token: it is exchanged once for the HttpOnly session cookie. The token stays in this form's field
 * only; it is never written to storage, a cookie script can read, or the URL.
 */
export function SignInPage({ message }: { message?: string | undefined }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const id = useId();
  useEffect(() => {
    document.title = "Sign in · toolbridge";
  }, []);
  return (
    <main className="sign-in" id="main">
      <form
        className="sign-in-card"
        onSubmit={(event) => {
          event.preventDefault();
          const form = event.currentTarget;
          const field = form.elements.namedItem("token") as HTMLInputElement;
          setBusy(true);
          setError(undefined);
          signIn(field.value)
            .catch((failure: unknown) => setError(errorText(failure)))
            .finally(() => {
              field.value = "";
              setBusy(false);
            });
        }}
      >
        <h1>
          <img src="/favicon.svg" alt="" width="28" height="28" /> Sign in to toolbridge
        </h1>
        <p className="muted">
          This server was started with a token (serve --token or TOOLBRIDGE_TOKEN). Enter it to continue.
        </p>
        {message ? <p className="notice">{message}</p> : null}
        <label htmlFor={id} className="field-label">
          Token
        </label>
        <input
          id={id}
          name="token"
          type="password"
          className="input"
          autoComplete="current-password"
          required
        />
        {error ? (
          <p className="form-errors" role="alert">
            {error}
          </p>
        ) : null}
        <button type="submit" className="button button-primary" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}
