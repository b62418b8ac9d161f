"use client";
// The one moment a key's secret is visible: after create or rotate. It is not stored anywhere
// the dashboard could show it again, so the user is told to copy it now.
import { CopyButton } from "../copy-button";
import { Notice } from "../ui";

export function SecretReveal({ secret, warnings = [], extra }: { secret: string; warnings?: string[]; extra?: React.ReactNode }) {
  return (
    <div className="space-y-3">
      <Notice tone="warning" title="Copy this secret now">
        It will not be shown again. Store it in your server&apos;s environment or secret manager.
      </Notice>
      <div className="flex flex-col gap-2 sm:flex-row sm:items-center">
        <code data-testid="api-key-secret" tabIndex={0} className="block flex-1 overflow-x-auto rounded-lg bg-slate-900 px-3 py-2.5 font-mono text-xs whitespace-nowrap text-emerald-300 select-all">
          {secret}
        </code>
        <CopyButton text={secret} label="Copy secret" size="md" />
      </div>
      {warnings.map((w) => (
        <Notice key={w} tone="warning">
          {w}
        </Notice>
      ))}
      {extra}
    </div>
  );
}
