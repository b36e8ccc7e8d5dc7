"use client";

import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import type { User } from "@/components/api/types";
import { useLogout } from "@/components/hooks/use-logout";
import { cx } from "./cx";

interface NavItem {
  href: string;
  label: string;
  /** Which paths light the item up; "/" alone would match everything. */
  matches: (pathname: string) => boolean;
}

const ITEMS: NavItem[] = [
  { href: "/", label: "Forms", matches: (p) => p === "/" || p.startsWith("/forms") },
  { href: "/jobs", label: "Jobs", matches: (p) => p.startsWith("/jobs") },
  { href: "/schedules", label: "Schedules", matches: (p) => p.startsWith("/schedules") },
  { href: "/hosts", label: "Hosts", matches: (p) => p.startsWith("/hosts") },
  { href: "/recap", label: "Analyse log", matches: (p) => p.startsWith("/recap") },
];

const ADMIN_ITEMS: NavItem[] = [
  { href: "/runners", label: "Runners", matches: (p) => p.startsWith("/runners") },
  { href: "/credentials", label: "Credentials", matches: (p) => p.startsWith("/credentials") },
  { href: "/sources", label: "Sources", matches: (p) => p.startsWith("/sources") },
  { href: "/users", label: "Users", matches: (p) => p.startsWith("/users") },
  { href: "/groups", label: "Groups", matches: (p) => p.startsWith("/groups") },
  { href: "/audit", label: "Audit", matches: (p) => p.startsWith("/audit") },
];

export function Nav({ user }: { user: User }) {
  const pathname = usePathname();
  const router = useRouter();
  const logout = useLogout();
  const items = user.role === "admin" ? [...ITEMS, ...ADMIN_ITEMS] : ITEMS;

  const onLogout = () => {
    logout.mutate(undefined, {
      onSettled: () => {
        router.replace("/login?signed_out=1");
        router.refresh();
      },
    });
  };

  return (
    <header className="sticky top-0 z-20 border-b border-zinc-200 bg-white/95 backdrop-blur">
      <div className="mx-auto flex h-12 max-w-7xl items-center gap-4 px-4 sm:gap-6 sm:px-6">
        <Link href="/" className="flex items-center gap-2 font-semibold tracking-tight text-zinc-900" aria-label="Playform home">
          <span
            aria-hidden="true"
            className="grid size-6 place-items-center rounded bg-indigo-600 font-mono text-[11px] font-bold text-white"
          >
            P
          </span>
          <span className="hidden sm:inline">Playform</span>
        </Link>
        <nav aria-label="Main" className="flex h-full items-stretch gap-1">
          {items.map((item) => {
            const active = item.matches(pathname);
            return (
              <Link
                key={item.href}
                href={item.href}
                aria-current={active ? "page" : undefined}
                className={cx(
                  "flex items-center border-b-2 px-2.5 text-sm font-medium transition-colors",
                  active ? "border-indigo-600 text-zinc-900" : "border-transparent text-zinc-500 hover:text-zinc-900",
                )}
              >
                {item.label}
              </Link>
            );
          })}
        </nav>
        <div className="ml-auto flex items-center gap-2 sm:gap-3">
          <Link
            href="/account"
            className="flex items-center gap-2 rounded-md px-1 text-sm text-zinc-700 hover:bg-zinc-100"
            data-testid="current-user"
            title={`${user.username}: your account`}
          >
            <span
              aria-hidden="true"
              className="grid size-6 place-items-center rounded-full bg-zinc-200 text-[11px] font-semibold text-zinc-700 uppercase"
            >
              {user.username.slice(0, 1)}
            </span>
            <span className="hidden sm:inline">{user.username}</span>
            {user.role === "admin" && (
              <span className="hidden rounded bg-zinc-100 sm:inline px-1.5 py-0.5 text-[10px] font-semibold tracking-wide text-zinc-600 uppercase">
                admin
              </span>
            )}
          </Link>
          <button
            type="button"
            onClick={onLogout}
            disabled={logout.isPending}
            className="rounded-md px-2 py-1 text-sm text-zinc-500 hover:bg-zinc-100 hover:text-zinc-900 disabled:opacity-50"
          >
            Logout
          </button>
        </div>
      </div>
    </header>
  );
}
