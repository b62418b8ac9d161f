// An event's name as the routes take it (POST /track and the commission rules' eventName): a
// letter or digit first, then letters, digits, spaces and _ . : / -.
import { z } from "zod";

export const eventNameSchema = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.:/ -]*$/, "Letters, digits, spaces and _ . : / -");
