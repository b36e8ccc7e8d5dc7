import { ButtonLink } from "./button";

/** The body of the 404 page. */
export function NotFound() {
  return (
    <div className="mx-auto max-w-md rounded-lg border border-zinc-200 bg-white px-8 py-10 text-center shadow-xs" data-testid="not-found">
      <p className="font-mono text-5xl font-semibold tracking-tight text-indigo-600">404</p>
      <h1 className="mt-3 text-lg font-semibold text-zinc-900">This page does not exist</h1>
      <p className="mt-1.5 text-sm text-zinc-600">The link may be mistyped, or the form or job it pointed to is gone.</p>
      <div className="mt-6 flex justify-center gap-2">
        <ButtonLink href="/" variant="primary">
          Back to the forms
        </ButtonLink>
        <ButtonLink href="/jobs">All jobs</ButtonLink>
      </div>
    </div>
  );
}
