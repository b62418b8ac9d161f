"use client";
// The TEST/LIVE switch: one choice that filters every page, remembered in localStorage.
import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from "react";
import { cx } from "./ui";

export type Environment = "TEST" | "LIVE";
const STORAGE_KEY = "rts.environment";
const EnvContext = createContext<{ env: Environment; setEnv: (e: Environment) => void; ready: boolean }>({ env: "TEST", setEnv: () => {}, ready: false });
export const useEnvironment = () => useContext(EnvContext);

export function EnvironmentProvider({ children }: { children: ReactNode }) {
  const [env, setEnvState] = useState<Environment>("TEST");
  const [ready, setReady] = useState(false);
  useEffect(() => {
    const saved = window.localStorage.getItem(STORAGE_KEY);
    if (saved === "LIVE" || saved === "TEST") setEnvState(saved);
    setReady(true);
  }, []);
  const setEnv = useCallback((e: Environment) => {
    setEnvState(e);
    window.localStorage.setItem(STORAGE_KEY, e);
  }, []);
  return <EnvContext.Provider value={{ env, setEnv, ready }}>{children}</EnvContext.Provider>;
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
