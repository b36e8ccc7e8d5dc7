import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { safeReturnPath } from "@/components/auth/return-path";
import { getCurrentUser } from "@/server/auth/current-user";
import { authProviders, oidcFailureMessage } from "@/server/auth/oidc";
import { LoginClient } from "./login-client";

export const metadata: Metadata = { title: "Sign in" };

export default async function LoginPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const next = safeReturnPath(params.next);
  // Already signed in: the login form has nothing to offer.
  if (await getCurrentUser()) redirect(next);
  const ssoError = oidcFailureMessage(typeof params.sso_error === "string" ? params.sso_error : undefined);
  return <LoginClient next={next} providers={authProviders()} ssoError={ssoError} signedOut={params.signed_out === "1"} />;
}
