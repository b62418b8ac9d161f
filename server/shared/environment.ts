/** A business's two worlds: TEST (local chain, test keys) and LIVE. Declared once, used everywhere. */
export const ENVIRONMENTS = ["TEST", "LIVE"] as const;
export type Environment = (typeof ENVIRONMENTS)[number];
