"use client";

import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { ApiError, errorMessage } from "@/components/api/client";
import { useLogin } from "@/components/hooks/use-login";
import { useTextFields } from "@/components/hooks/use-text-fields";
import { Button } from "@/components/ui/button";
import { TextFields } from "@/components/ui/field";
import type { AuthProviders } from "@/server/auth/oidc";

const LOGIN_FIELDS = [
  { name: "username", id: "username", label: "Username", autoComplete: "username", autoFocus: true, required: true },
  { name: "password", id: "password", label: "Password", type: "password", autoComplete: "current-password", required: true },
] as const;

export function LoginClient({
  next,
  providers,
  ssoError,
  signedOut,
}: {
  next: string;
  providers: AuthProviders;
  /** Why the last single sign-on failed (?sso_error=), as a sentence. */
  ssoError: string | null;
  /** Just signed out (?signed_out=1): offer to sign out of the provider too. */
  signedOut: boolean;
}) {
  const router = useRouter();
  // With password sign-in off, the form is kept for the break-glass account behind a link.
  const [showPasswordForm, setShowPasswordForm] = useState(providers.localLogin);
  const login = useLogin();
  const { values, bind } = useTextFields({ username: "", password: "" });

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    login.mutate(
      { username: values.username.trim(), password: values.password },
      {
        onSuccess: () => {
          router.replace(next);
          // The server components of the target page must see the new cookie.
          router.refresh();
        },
      },
    );
  };

  const error = login.error;
  const message =
    error instanceof ApiError && error.status === 401
      ? "Wrong username or password"
      : error instanceof ApiError && error.status === 429
        ? "Too many attempts. Wait a moment and try again."
        : error
          ? errorMessage(error)
          : ssoError;

  return (
    <main className="flex min-h-screen items-center justify-center bg-zinc-100 px-4">
      <div className="w-full max-w-sm">
        <div className="mb-6 flex items-center justify-center gap-2 text-lg font-semibold tracking-tight text-zinc-900">
          <span aria-hidden="true" className="grid size-7 place-items-center rounded bg-indigo-600 font-mono text-xs font-bold text-white">
            P
          </span>
          Playform
        </div>
        {providers.oidc && (
          <div className="mb-4 space-y-2 rounded-lg border border-zinc-200 bg-white p-6 shadow-sm">
            <a
              href={`${providers.oidc.loginUrl}?next=${encodeURIComponent(next)}`}
              className="block w-full rounded-md bg-indigo-600 px-3 py-2 text-center text-sm font-medium text-white hover:bg-indigo-500"
              data-testid="sso-login"
            >
              Sign in with {providers.oidc.label}
            </a>
            {signedOut && (
              // A full navigation on purpose: a <Link> would prefetch this GET, which signs out.
              // eslint-disable-next-line @next/next/no-html-link-for-pages
              <a href="/api/auth/oidc/logout" className="block text-center text-xs text-zinc-500 hover:underline" data-testid="sso-logout">
                Also sign out of {providers.oidc.label}
              </a>
            )}
            {!showPasswordForm && message && (
              <div
                role="alert"
                className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800"
                data-testid="login-error"
              >
                {message}
              </div>
            )}
          </div>
        )}
        {showPasswordForm ? (
          <>
            {/* method="post": should a submit ever happen before hydration, the password goes
            in a request body, not into the URL, the history and the access log. */}
            <form
              method="post"
              onSubmit={onSubmit}
              className="space-y-4 rounded-lg border border-zinc-200 bg-white p-6 shadow-sm"
              aria-describedby={message ? "login-error" : undefined}
            >
              <div>
                <h1 className="text-base font-semibold text-zinc-900">Sign in</h1>
                <p className="mt-0.5 text-sm text-zinc-500">Run Ansible playbooks from a form.</p>
              </div>
              {message && (
                <div
                  id="login-error"
                  role="alert"
                  className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800"
                  data-testid="login-error"
                >
                  {message}
                </div>
              )}
              <TextFields look="prominent" fields={LOGIN_FIELDS} bind={bind} />
              <Button type="submit" variant="primary" className="w-full" disabled={login.isPending}>
                {login.isPending ? "Signing in…" : "Sign in"}
              </Button>
            </form>
          </>
        ) : (
          <div className="text-center text-xs text-zinc-500">
            {!providers.oidc && message && (
              <div
                role="alert"
                className="mb-2 rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800"
                data-testid="login-error"
              >
                {message}
              </div>
            )}
            Password sign-in is turned off on this server.{" "}
            <button
              type="button"
              className="underline hover:text-zinc-700"
              onClick={() => setShowPasswordForm(true)}
              data-testid="admin-sign-in"
            >
              Administrator sign-in
            </button>
          </div>
        )}
      </div>
    </main>
  );
}
