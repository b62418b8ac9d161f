import { z } from "zod";

/** An email address as every input takes it: trimmed, lower-cased, at most 254 characters. */
export const email = z.string().trim().max(254).toLowerCase().pipe(z.email({ message: "Must be a valid email address" }));
