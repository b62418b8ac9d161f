export const root: string;
export function run(cmd: string, args: string[], opts?: object): void;
export function ensureDependencies(): void;
export function ensurePrismaClient(): void;
export function ensureBuild(opts?: { force?: boolean }): void;
