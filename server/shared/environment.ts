import { z } from "zod";

/** A business's two worlds: TEST (local chain, test keys) and LIVE. Declared once, used everywhere. */
export const ENVIRONMENTS = ["TEST", "LIVE"] as const;
export type Environment = (typeof ENVIRONMENTS)[number];
/** The environment as an input or output field. */
export const environment = z.enum(ENVIRONMENTS);
