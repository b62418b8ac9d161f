"use client";
// The TEST/LIVE switch: one choice that filters every page, remembered in localStorage.
import { createContext, useCallback, useContext, useSyncExternalStore, type ReactNode } from "react";
import type { Environment } from "@/server/shared/environment";
import { cx } from "./ui";

const STORAGE_KEY = "rts.environment";
const EnvContext = createContext<{ env: Environment; setEnv: (e: Environment) => void; ready: boolean }>({ env: "TEST", setEnv: () => {}, ready: false });
export const useEnvironment = () => useContext(EnvContext);

// The choice lives in localStorage (an external store): read after hydration, shared by every tab.
const listeners = new Set<() => void>();
function subscribe(onChange: () => void) {
  listeners.add(onChange);
  window.addEventListener("storage", onChange);
  return () => {
    listeners.delete(onChange);
    window.removeEventListener("storage", onChange);
  };
}
const readSaved = (): Environment => (window.localStorage.getItem(STORAGE_KEY) === "LIVE" ? "LIVE" : "TEST");

export function EnvironmentProvider({ children }: { children: ReactNode }) {
  // null on the server and during hydration: pages wait for `ready` before querying.
  const saved = useSyncExternalStore<Environment | null>(subscribe, readSaved, () => null);
  const setEnv = useCallback((e: Environment) => {
    window.localStorage.setItem(STORAGE_KEY, e);
    listeners.forEach((l) => l());
  }, []);
  return <EnvContext.Provider value={{ env: saved ?? "TEST", setEnv, ready: saved !== null }}>{children}</EnvContext.Provider>;
}

export function EnvironmentSwitch({ className }: { className?: string }) {
  const { env, setEnv } = useEnvironment();
  return (
    <div role="radiogroup" aria-label="Environment" className={cx("inline-flex rounded-lg bg-slate-100 p-0.5 ring-1 ring-slate-200", className)}>
      {(["TEST", "LIVE"] as const).map((e) => (
        <button
          key={e}
          type="button"
          role="radio"
          aria-checked={env === e}
          onClick={() => setEnv(e)}
          className={cx(
            "rounded-md px-3 py-1 text-xs font-semibold tracking-wide transition focus-visible:outline-2 focus-visible:outline-indigo-600",
            env === e ? (e === "TEST" ? "bg-amber-400 text-amber-950 shadow-sm" : "bg-indigo-600 text-white shadow-sm") : "text-slate-600 hover:text-slate-900",
          )}
        >
          {e === "TEST" ? "Test" : "Live"}
        </button>
      ))}
    </div>
  );
}
