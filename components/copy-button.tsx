"use client";
import { useState } from "react";
import { Icon } from "./icons";
import { Button } from "./ui";

export function CopyButton({ text, label = "Copy", size = "sm" }: { text: string; label?: string; size?: "sm" | "md" }) {
  const [copied, setCopied] = useState(false);
  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      // Clipboard API refused (insecure origin, permissions): fall back to a hidden textarea.
      const ta = document.createElement("textarea");
      ta.value = text;
      document.body.appendChild(ta);
      ta.select();
      document.execCommand("copy");
      ta.remove();
    }
    setCopied(true);
    setTimeout(() => setCopied(false), 2000);
  }
  return (
    <Button variant="secondary" size={size} onClick={copy} aria-label={copied ? "Copied" : label}>
      <Icon name={copied ? "check" : "copy"} className="h-4 w-4" />
      {copied ? "Copied" : label}
    </Button>
  );
}

/** A snippet with a copy button. */
export function CodeBlock({ code, label }: { code: string; label: string }) {
  return (
    <div className="overflow-hidden rounded-lg bg-slate-900 ring-1 ring-slate-800">
      <div className="flex items-center justify-between border-b border-white/10 px-3 py-1.5">
        <span className="text-xs font-medium text-slate-400">{label}</span>
        <CopyButton text={code} label={`Copy ${label}`} />
      </div>
      {/* Focusable so that keyboard users can scroll long lines. */}
      <pre tabIndex={0} aria-label={`${label} code`} className="overflow-x-auto p-4 text-xs leading-relaxed text-slate-100 focus-visible:outline-2 focus-visible:outline-indigo-400">
        <code>{code}</code>
      </pre>
    </div>
  );
}
