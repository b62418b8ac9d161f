export const BUILD_DIR: string;
export function compileContracts(): Record<string, { abi: unknown[]; bytecode: string }>;
export function buildText(artifact: { abi: unknown[]; bytecode: string }): string;
