"use client";
// The dashboard's small design system: buttons, fields, cards, tables, badges, dialogs and the
// loading / empty / error states every page uses, so pages stay short and look alike.
import Link from "next/link";
import { useEffect, useId, useRef, type ButtonHTMLAttributes, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes, type TextareaHTMLAttributes } from "react";

export function cx(...parts: Array<string | false | null | undefined>) {
  return parts.filter(Boolean).join(" ");
}

type Variant = "primary" | "secondary" | "danger" | "ghost";
const VARIANTS: Record<Variant, string> = {
  primary: "bg-indigo-600 text-white hover:bg-indigo-500 focus-visible:outline-indigo-600 shadow-sm",
  secondary: "bg-white text-slate-800 ring-1 ring-inset ring-slate-300 hover:bg-slate-50 focus-visible:outline-indigo-600 shadow-sm",
  danger: "bg-rose-600 text-white hover:bg-rose-500 focus-visible:outline-rose-600 shadow-sm",
  ghost: "text-slate-700 hover:bg-slate-100 focus-visible:outline-indigo-600",
};

function buttonClass(variant: Variant = "primary", size: "sm" | "md" = "md", className?: string) {
  return cx(
    "inline-flex items-center justify-center gap-2 whitespace-nowrap rounded-lg font-medium transition focus-visible:outline-2 focus-visible:outline-offset-2 disabled:cursor-not-allowed disabled:opacity-60",
    size === "sm" ? "px-2.5 py-1.5 text-xs" : "px-3.5 py-2 text-sm",
    VARIANTS[variant],
    className,
  );
}

/** A link that looks like a button (navigation stays a real <a>). */
export function LinkButton({ href, variant, size, className, children }: { href: string; variant?: Variant; size?: "sm" | "md"; className?: string; children: ReactNode }) {
  return (
    <Link href={href} className={buttonClass(variant, size, className)}>
      {children}
    </Link>
  );
}

export function Button({ variant = "primary", size = "md", loading, className, children, disabled, ...rest }: ButtonHTMLAttributes<HTMLButtonElement> & { variant?: Variant; size?: "sm" | "md"; loading?: boolean }) {
  return (
    <button
      type="button"
      {...rest}
      disabled={disabled || loading}
      aria-busy={loading || undefined}
      className={buttonClass(variant, size, className)}
    >
      {loading && <Spinner className="h-4 w-4" />}
      {children}
    </button>
  );
}

export function Spinner({ className = "h-5 w-5" }: { className?: string }) {
  return (
    <svg className={cx("animate-spin", className)} viewBox="0 0 24 24" fill="none" aria-hidden="true">
      <circle cx="12" cy="12" r="10" stroke="currentColor" strokeOpacity="0.25" strokeWidth="4" />
      <path d="M22 12a10 10 0 0 0-10-10" stroke="currentColor" strokeWidth="4" strokeLinecap="round" />
    </svg>
  );
}

/** A labelled form control with its hint and its error; the error is announced and linked to the control. */
export function Field({ label, error, hint, children, className }: { label: ReactNode; error?: string; hint?: ReactNode; children: (props: { id: string; "aria-invalid"?: boolean; "aria-describedby"?: string }) => ReactNode; className?: string }) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const describedBy = [hint ? hintId : null, error ? errorId : null].filter(Boolean).join(" ") || undefined;
  return (
    <div className={cx("space-y-1.5", className)}>
      <label htmlFor={id} className="block text-sm font-medium text-slate-800">
        {label}
      </label>
      {children({ id, "aria-invalid": error ? true : undefined, "aria-describedby": describedBy })}
      {hint && !error && (
        <p id={hintId} className="text-xs text-slate-500">
          {hint}
        </p>
      )}
      {error && (
        <p id={errorId} role="alert" className="text-xs font-medium text-rose-600">
          {error}
        </p>
      )}
    </div>
  );
}

const control =
  "block w-full rounded-lg border-0 bg-white px-3 py-2 text-sm text-slate-900 shadow-sm ring-1 ring-inset ring-slate-300 placeholder:text-slate-400 focus:ring-2 focus:ring-inset focus:ring-indigo-600 aria-[invalid=true]:ring-rose-500 disabled:bg-slate-50 disabled:text-slate-500";

export function Input({ className, ...rest }: InputHTMLAttributes<HTMLInputElement>) {
  return <input {...rest} className={cx(control, className)} />;
}
export function Textarea({ className, ...rest }: TextareaHTMLAttributes<HTMLTextAreaElement>) {
  return <textarea {...rest} className={cx(control, "min-h-20", className)} />;
}
export function Select({ className, children, ...rest }: SelectHTMLAttributes<HTMLSelectElement>) {
  return (
    <select {...rest} className={cx(control, "pr-8", className)}>
      {children}
    </select>
  );
}

export function Toggle({ checked, onChange, label, description, disabled, name }: { checked: boolean; onChange: (v: boolean) => void; label: string; description?: ReactNode; disabled?: boolean; name?: string }) {
  const id = useId();
  return (
    <div className="flex items-start justify-between gap-4 py-3">
      <div>
        <label htmlFor={id} className="text-sm font-medium text-slate-800">
          {label}
        </label>
        {description && <p className="text-xs text-slate-500">{description}</p>}
      </div>
      <button
        id={id}
        type="button"
        role="switch"
        name={name}
        aria-checked={checked}
        disabled={disabled}
        onClick={() => onChange(!checked)}
        className={cx(
          "relative inline-flex h-6 w-11 shrink-0 cursor-pointer rounded-full transition focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 disabled:cursor-not-allowed disabled:opacity-60",
          checked ? "bg-indigo-600" : "bg-slate-300",
        )}
      >
        <span className={cx("inline-block h-5 w-5 translate-y-0.5 rounded-full bg-white shadow transition", checked ? "translate-x-5.5" : "translate-x-0.5")} />
      </button>
    </div>
  );
}

export function Card({ title, description, actions, children, className, bodyClassName }: { title?: ReactNode; description?: ReactNode; actions?: ReactNode; children: ReactNode; className?: string; bodyClassName?: string }) {
  return (
    // min-w-0: inside a grid, a card must not grow to the width of a wide table it scrolls.
    <section className={cx("min-w-0 rounded-xl bg-white shadow-sm ring-1 ring-slate-200", className)}>
      {(title || actions) && (
        <header className="flex flex-wrap items-start justify-between gap-3 border-b border-slate-100 px-5 py-4">
          <div>
            {title && <h2 className="text-base font-semibold text-slate-900">{title}</h2>}
            {description && <p className="mt-0.5 text-sm text-slate-500">{description}</p>}
          </div>
          {actions && <div className="flex flex-wrap items-center gap-2">{actions}</div>}
        </header>
      )}
      <div className={cx("p-5", bodyClassName)}>{children}</div>
    </section>
  );
}

export function PageHeader({ title, description, actions }: { title: string; description?: ReactNode; actions?: ReactNode }) {
  return (
    <div className="mb-6 flex flex-wrap items-end justify-between gap-4">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight text-slate-900">{title}</h1>
        {description && <p className="mt-1 text-sm text-slate-500">{description}</p>}
      </div>
      {actions && <div className="flex flex-wrap gap-2">{actions}</div>}
    </div>
  );
}

const BADGE: Record<string, string> = {
  green: "bg-emerald-50 text-emerald-700 ring-emerald-600/20",
  amber: "bg-amber-50 text-amber-800 ring-amber-600/20",
  red: "bg-rose-50 text-rose-700 ring-rose-600/20",
  blue: "bg-sky-50 text-sky-700 ring-sky-600/20",
  indigo: "bg-indigo-50 text-indigo-700 ring-indigo-600/20",
  gray: "bg-slate-100 text-slate-600 ring-slate-500/20",
};
const STATUS_COLOR: Record<string, keyof typeof BADGE> = {
  ACTIVE: "green", PROCESSED: "green", REWARDED: "green", SUCCEEDED: "green", PAID: "green", CREDITED: "green", QUALIFIED: "blue",
  QUEUED: "gray", PENDING: "gray", INVITED: "gray", RUNNING: "blue",
  FLAGGED: "amber", CAPPED: "amber", HELD: "amber", UNFUNDED: "amber",
  REJECTED: "red", FAILED: "red", REVOKED: "red",
  TEST: "amber", LIVE: "indigo", OWNER: "indigo", MEMBER: "gray",
};
export function Badge({ children, color }: { children: ReactNode; color?: keyof typeof BADGE }) {
  const c = color ?? (typeof children === "string" ? STATUS_COLOR[children] : undefined) ?? "gray";
  return <span className={cx("inline-flex items-center rounded-md px-2 py-0.5 text-xs font-medium ring-1 ring-inset whitespace-nowrap", BADGE[c])}>{children}</span>;
}

export function Skeleton({ className }: { className?: string }) {
  return <div className={cx("animate-pulse rounded-md bg-slate-200/70", className)} />;
}

export function LoadingRows({ rows = 4, label = "Loading" }: { rows?: number; label?: string }) {
  return (
    <div role="status" aria-label={label} className="space-y-3">
      {Array.from({ length: rows }, (_, i) => (
        <Skeleton key={i} className="h-9 w-full" />
      ))}
    </div>
  );
}

export function EmptyState({ title, children, action, icon }: { title: string; children?: ReactNode; action?: ReactNode; icon?: ReactNode }) {
  return (
    <div className="flex flex-col items-center justify-center rounded-lg border border-dashed border-slate-300 px-6 py-10 text-center">
      {icon && <div className="mb-3 text-slate-400">{icon}</div>}
      <p className="text-sm font-semibold text-slate-800">{title}</p>
      {children && <div className="mt-1 max-w-md text-sm text-slate-500">{children}</div>}
      {action && <div className="mt-4">{action}</div>}
    </div>
  );
}

export function ErrorState({ error, onRetry }: { error: { message: string } | null | undefined; onRetry?: () => void }) {
  return (
    <div role="alert" className="flex flex-wrap items-center justify-between gap-3 rounded-lg bg-rose-50 px-4 py-3 text-sm text-rose-800 ring-1 ring-rose-200">
      <span>
        <strong className="font-semibold">Could not load.</strong> {error?.message ?? "Something went wrong."}
      </span>
      {onRetry && (
        <Button variant="secondary" size="sm" onClick={onRetry}>
          Retry
        </Button>
      )}
    </div>
  );
}

export function Notice({ tone = "info", children, title }: { tone?: "info" | "warning" | "success" | "danger"; title?: ReactNode; children: ReactNode }) {
  const tones = {
    info: "bg-sky-50 text-sky-900 ring-sky-200",
    warning: "bg-amber-50 text-amber-900 ring-amber-200",
    success: "bg-emerald-50 text-emerald-900 ring-emerald-200",
    danger: "bg-rose-50 text-rose-900 ring-rose-200",
  };
  return (
    <div className={cx("rounded-lg px-4 py-3 text-sm ring-1", tones[tone])} role={tone === "danger" || tone === "warning" ? "alert" : "status"}>
      {title && <p className="font-semibold">{title}</p>}
      <div className={title ? "mt-1" : undefined}>{children}</div>
    </div>
  );
}

/** Tables scroll sideways on narrow screens instead of breaking the layout. */
export function Table({ children, label }: { children: ReactNode; label: string }) {
  return (
    // `relative` keeps absolutely positioned children (sr-only labels) inside the scroller.
    // Focusable region: keyboard users can scroll a table that is wider than the screen.
    <div className="relative -mx-5 overflow-x-auto focus-visible:outline-2 focus-visible:outline-indigo-600" tabIndex={0} role="region" aria-label={`${label} (scrolls sideways)`}>
      <table aria-label={label} className="min-w-full divide-y divide-slate-200 text-left text-sm">
        {children}
      </table>
    </div>
  );
}
// Cells are padded less between columns than at the edges, so that wide tables fit a desktop card
// instead of hiding their last column behind a sideways scroll.
export function Th({ children, className }: { children?: ReactNode; className?: string }) {
  return <th scope="col" className={cx("px-3 py-2.5 text-xs first:pl-5 last:pr-5 font-semibold tracking-wide whitespace-nowrap text-slate-500 uppercase", className)}>{children}</th>;
}
export function Td({ children, className }: { children?: ReactNode; className?: string }) {
  return <td className={cx("px-3 py-3 align-middle text-slate-700 first:pl-5 last:pr-5", className)}>{children}</td>;
}

/** A modal on the native <dialog>: focus moves in, Escape closes, focus returns on close. */
export function Dialog({ open, onClose, title, children, footer }: { open: boolean; onClose: () => void; title: string; children: ReactNode; footer?: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
      aria-labelledby={`${title}-title`.replace(/\s+/g, "-")}
      className="m-auto w-[calc(100%-2rem)] max-w-lg rounded-xl bg-white p-0 shadow-xl ring-1 ring-slate-200 backdrop:bg-slate-900/40"
    >
      {open && (
        <div>
          <div className="border-b border-slate-100 px-5 py-4">
            <h2 id={`${title}-title`.replace(/\s+/g, "-")} className="text-base font-semibold text-slate-900">
              {title}
            </h2>
          </div>
          <div className="space-y-4 px-5 py-4 text-sm text-slate-700">{children}</div>
          {footer && <div className="flex flex-wrap justify-end gap-2 border-t border-slate-100 bg-slate-50 px-5 py-3">{footer}</div>}
        </div>
      )}
    </dialog>
  );
}

export function Stat({ label, value, hint, loading }: { label: string; value: ReactNode; hint?: ReactNode; loading?: boolean }) {
  return (
    <div className="min-w-0 rounded-xl bg-white p-5 shadow-sm ring-1 ring-slate-200">
      <dt className="text-sm font-medium text-slate-500">{label}</dt>
      {/* Wei-precision amounts (18 decimals) wrap inside the card instead of widening the page. */}
      <dd className="mt-2 text-2xl font-semibold tracking-tight [overflow-wrap:anywhere] text-slate-900">{loading ? <Skeleton className="h-8 w-24" /> : value}</dd>
      {hint && <dd className="mt-1 text-xs text-slate-500">{hint}</dd>}
    </div>
  );
}

/** What a list reads from its query: a tRPC `useQuery` result, or `combinePages` when it pages. */
export interface ListQuery {
  isLoading: boolean;
  error: { message: string } | null | undefined;
  refetch: () => unknown;
  hasNextPage?: boolean;
  isFetchingNextPage?: boolean;
  fetchNextPage?: () => unknown;
}

type DataListTable = { label: string; head: ReactNode } | { label?: undefined; head?: undefined };

/**
 * A list in a card: skeleton while loading, the error with a retry, the empty state, then the
 * table (`label` and `head` given: the children are its rows) or the children as they are, with
 * "Load more" when the query pages.
 */
export function DataList({ query, isEmpty, empty, itemsLabel, skeleton = 3, label, head, children }: { query: ListQuery; isEmpty: boolean; empty: ReactNode; itemsLabel: string; skeleton?: number; children: ReactNode } & DataListTable) {
  if (query.isLoading) return <div className="pt-5"><LoadingRows rows={skeleton} label={`Loading ${itemsLabel}`} /></div>;
  if (query.error) return <div className="pt-5"><ErrorState error={query.error} onRetry={() => query.refetch()} /></div>;
  if (isEmpty) return <div className="pt-5">{empty}</div>;
  const more = query.fetchNextPage;
  return (
    <>
      {head !== undefined && label !== undefined ? (
        <Table label={label}>
          <thead>
            <tr>{head}</tr>
          </thead>
          <tbody className="divide-y divide-slate-100">{children}</tbody>
        </Table>
      ) : (
        children
      )}
      {more && query.hasNextPage && (
        <div className="pt-4 text-center">
          <Button variant="secondary" size="sm" loading={query.isFetchingNextPage} onClick={() => more()}>
            Load more
          </Button>
        </div>
      )}
    </>
  );
}

/**
 * A dialog that asks before an action (destructive, about money, or a form to submit): what
 * happens, cancel and confirm, the confirm button busy while pending, and the error in words.
 * With `done`, the same dialog then shows the result (a new secret) with a Done button.
 * With `form`, the confirm button submits that form (in `children`) instead of calling `onConfirm`.
 */
export function ConfirmDialog({ title, children, confirmLabel, onConfirm, form, onClose, pending, error, tone = "danger", cancelLabel = "Cancel", confirmDisabled, done }: {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  onConfirm?: () => void;
  form?: string;
  onClose: () => void;
  pending?: boolean;
  error?: string | null;
  tone?: "danger" | "primary";
  cancelLabel?: string;
  confirmDisabled?: boolean;
  done?: { title: string; children: ReactNode } | false | null;
}) {
  if (done) {
    return (
      <Dialog open onClose={onClose} title={done.title} footer={<Button onClick={onClose}>Done</Button>}>
        {done.children}
      </Dialog>
    );
  }
  const footer = (
    <>
      <Button variant="ghost" onClick={onClose}>
        {cancelLabel}
      </Button>
      <Button variant={tone} type={form ? "submit" : "button"} form={form} loading={pending} disabled={confirmDisabled} onClick={form ? undefined : onConfirm}>
        {confirmLabel}
      </Button>
    </>
  );
  return (
    <Dialog open onClose={onClose} title={title} footer={footer}>
      {children}
      {error && (
        <p className="text-sm font-medium text-rose-600" role="alert">
          {error}
        </p>
      )}
    </Dialog>
  );
}
