/** Where the installation's generated secrets live (.data/secrets.json). */
export const SECRETS_FILE: string;
/** Sets each secret the environment lacks from .data/secrets.json (written on first use); returns the names it set. */
export function loadSecrets(env?: NodeJS.ProcessEnv): string[];
