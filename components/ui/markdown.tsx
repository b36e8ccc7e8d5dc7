import ReactMarkdown, { type Components } from "react-markdown";
import remarkGfm from "remark-gfm";
import { cx } from "./cx";

/**
 * Markdown an admin wrote (a form's description, a field's help), rendered safely: raw HTML is
 * dropped (skipHtml), link targets other than http(s), mailto and relative ones are removed
 * (react-markdown's default urlTransform), links open in a new tab without an opener.
 */
const COMPONENTS: Components = {
  a: ({ href, children }) => (
    <a href={href} target="_blank" rel="noopener noreferrer" className="text-indigo-600 underline hover:text-indigo-800">
      {children}
    </a>
  ),
  code: ({ children }) => <code className="rounded bg-zinc-100 px-1 py-0.5 font-mono text-[0.85em] text-zinc-800">{children}</code>,
  ul: ({ children }) => <ul className="ml-4 list-disc space-y-0.5">{children}</ul>,
  ol: ({ children }) => <ol className="ml-4 list-decimal space-y-0.5">{children}</ol>,
  p: ({ children }) => <p className="[&:not(:first-child)]:mt-1.5">{children}</p>,
  pre: ({ children }) => <pre className="mt-1.5 overflow-x-auto rounded bg-zinc-50 p-2 text-xs">{children}</pre>,
  img: ({ alt }) => <span>{alt}</span>,
};

export function Markdown({ children, className }: { children: string; className?: string }) {
  return (
    <div className={cx("break-words", className)} data-markdown="">
      <ReactMarkdown remarkPlugins={[remarkGfm]} skipHtml components={COMPONENTS}>
        {children}
      </ReactMarkdown>
    </div>
  );
}
