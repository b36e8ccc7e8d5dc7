import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { safeReturnPath } from "@/components/auth/return-path";
import { getCurrentUser } from "@/server/auth/current-user";
import { LoginClient } from "./login-client";

export const metadata: Metadata = { title: "Sign in" };

export default async function LoginPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const next = safeReturnPath((await searchParams).next);
  // Already signed in: the login form has nothing to offer.
  if (await getCurrentUser()) redirect(next);
  return <LoginClient next={next} />;
}
