// The installation's secrets, so that a fresh clone starts with no configuration: production
// requires BETTER_AUTH_SECRET and WEBHOOK_SECRET_KEY (server/shared/env.ts). Each one not set in
// the environment is taken from .data/secrets.json, which the first start writes (random, 32
// bytes each, readable by its owner only). Every process of the installation (`npm start`, the
// server, `npm run worker`) loads the same file, so they sign and encrypt with the same keys.
import { randomBytes } from "node:crypto";
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
export const SECRETS_FILE = path.join(root, ".data", "secrets.json");
const NAMES = ["BETTER_AUTH_SECRET", "WEBHOOK_SECRET_KEY"];

/** The stored secrets, written once: two processes starting together keep the first file written. */
function stored() {
  try {
    return JSON.parse(readFileSync(SECRETS_FILE, "utf8"));
  } catch (e) {
    if (e.code !== "ENOENT") throw new Error(`${SECRETS_FILE} is unreadable (${e.message}): fix or remove it`, { cause: e });
  }
  mkdirSync(path.dirname(SECRETS_FILE), { recursive: true });
  const fresh = Object.fromEntries(NAMES.map((n) => [n, randomBytes(32).toString("hex")]));
  const tmp = `${SECRETS_FILE}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(fresh, null, 2) + "\n", { mode: 0o600 });
  try {
    linkSync(tmp, SECRETS_FILE); // fails if another process wrote it first
  } catch (e) {
    if (e.code !== "EEXIST") throw e;
  } finally {
    rmSync(tmp, { force: true });
  }
  return JSON.parse(readFileSync(SECRETS_FILE, "utf8"));
}

/** Sets each secret the environment lacks from .data/secrets.json (written on first use); returns the names it set. */
export function loadSecrets(env = process.env) {
  const missing = NAMES.filter((n) => !env[n]);
  if (!missing.length) return [];
  const file = stored();
  for (const n of missing) {
    if (typeof file[n] !== "string" || !file[n]) throw new Error(`${SECRETS_FILE} has no ${n}: set it in the environment or remove the file`);
    env[n] = file[n];
  }
  return missing;
}
