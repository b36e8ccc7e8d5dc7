import Link from "next/link";
import type { FormSummary } from "@/components/api/types";
import { ButtonLink } from "@/components/ui/button";
import { Markdown } from "@/components/ui/markdown";

export function FormCard({ form }: { form: FormSummary }) {
  const required = form.fields.filter((f) => f.required).length;
  const href = `/forms/${encodeURIComponent(form.name)}`;
  return (
    <article
      className="flex h-full flex-col rounded-lg border border-zinc-200 bg-white p-4 shadow-xs transition-shadow hover:border-zinc-300 hover:shadow-sm"
      data-testid="form-card"
      data-form={form.name}
    >
      <div className="flex items-start justify-between gap-3">
        <h2 className="text-sm font-semibold text-zinc-900">
          {/* The title opens the form too (tabIndex -1: the Open button is the one keyboard stop). */}
          <Link href={href} tabIndex={-1} className="hover:text-indigo-700 hover:underline" data-testid="form-card-title">
            {form.title}
          </Link>
        </h2>
        <code className="shrink-0 rounded bg-zinc-100 px-1.5 py-0.5 font-mono text-[11px] text-zinc-600">{form.name}</code>
      </div>
      <div className="mt-1.5 line-clamp-3 flex-1 text-sm text-zinc-600">
        {form.description ? <Markdown>{form.description}</Markdown> : "No description."}
      </div>
      <div className="mt-4 flex items-center justify-between">
        <span className="text-xs text-zinc-500">
          {form.fields.length} {form.fields.length === 1 ? "field" : "fields"}
          {required > 0 && ` · ${required} required`}
        </span>
        <ButtonLink href={href} size="sm" variant="primary" aria-label={`Open ${form.title}`}>
          Open
        </ButtonLink>
      </div>
    </article>
  );
}
