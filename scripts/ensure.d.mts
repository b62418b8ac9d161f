export const root: string;
export function run(cmd: string, args: string[], opts?: object): void;
export function took(ms: number): string;
export function ensureDependencies(opts?: { dev?: boolean }): void;
export function ensurePrismaClient(): void;
export function buildIsStale(): boolean;
export function ensureBuild(opts?: { force?: boolean; quiet?: boolean; env?: Record<string, string> }): void;
