"use client";

import { useRouter } from "next/navigation";
import type { FormEvent } from "react";
import { ApiError, errorMessage } from "@/components/api/client";
import { useLogin } from "@/components/hooks/use-login";
import { useTextFields } from "@/components/hooks/use-text-fields";
import { Button } from "@/components/ui/button";
import { TextFields } from "@/components/ui/field";

const LOGIN_FIELDS = [
  { name: "username", id: "username", label: "Username", autoComplete: "username", autoFocus: true, required: true },
  { name: "password", id: "password", label: "Password", type: "password", autoComplete: "current-password", required: true },
] as const;

export function LoginClient({ next }: { next: string }) {
  const router = useRouter();
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
          : null;

  return (
    <main className="flex min-h-screen items-center justify-center bg-zinc-100 px-4">
      <div className="w-full max-w-sm">
        <div className="mb-6 flex items-center justify-center gap-2 text-lg font-semibold tracking-tight text-zinc-900">
          <span aria-hidden="true" className="grid size-7 place-items-center rounded bg-indigo-600 font-mono text-xs font-bold text-white">
            P
          </span>
          Playform
        </div>
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
      </div>
    </main>
  );
}
