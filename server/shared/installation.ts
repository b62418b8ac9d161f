// The installation's TEST deposit mnemonic, once the database was opened (db/installation.ts).
// On globalThis, as the database client is: Next.js may load this module more than once.
const g = globalThis as unknown as { __rtsInstallationTestMnemonic?: string };

export function setInstallationTestMnemonic(mnemonic: string) {
  g.__rtsInstallationTestMnemonic = mnemonic;
}

/** Null until the database was opened in this process. */
export function installationTestMnemonic(): string | null {
  return g.__rtsInstallationTestMnemonic ?? null;
}
