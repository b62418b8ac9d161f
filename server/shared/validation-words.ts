// Validation messages in words, for every schema that sets no message of its own (a schema's own
// message always wins): what forms show next to a field and what the API's `details` say, instead
// of a validator's raw text ("Too small: expected string to have >=1 characters").
import { z } from "zod";

type Issue = z.core.$ZodRawIssue;

const TYPE_WORDS: Record<string, string> = {
  string: "Must be text",
  number: "Must be a number",
  int: "Must be a whole number",
  boolean: "Must be true or false",
  array: "Must be a list",
  object: "Must be an object",
};

const n = (v: unknown) => (typeof v === "bigint" || typeof v === "number" ? Number(v).toLocaleString("en-US") : String(v));

function issueInWords(issue: Issue): string | undefined {
  switch (issue.code) {
    case "invalid_type":
      if (issue.input === undefined) return "Required";
      return TYPE_WORDS[issue.expected] ?? `Must be ${issue.expected}`;
    case "too_small":
      if (issue.origin === "string") return Number(issue.minimum) <= 1 ? "Required: must not be empty" : `Must be at least ${n(issue.minimum)} characters`;
      if (issue.origin === "array" || issue.origin === "set") return `Must have at least ${n(issue.minimum)} item${Number(issue.minimum) === 1 ? "" : "s"}`;
      return issue.inclusive ? `Must be ${n(issue.minimum)} or more` : `Must be more than ${n(issue.minimum)}`;
    case "too_big":
      if (issue.origin === "string") return `Must be at most ${n(issue.maximum)} characters`;
      if (issue.origin === "array" || issue.origin === "set") return `Must have at most ${n(issue.maximum)} items`;
      return issue.inclusive ? `Must be ${n(issue.maximum)} or less` : `Must be less than ${n(issue.maximum)}`;
    case "invalid_format":
      if (issue.format === "email") return "Must be an email address such as name@example.com";
      if (issue.format === "url") return "Must be a web address such as https://example.com";
      return `Must be a valid ${issue.format}`;
    case "invalid_value":
      return `Must be one of: ${issue.values.map(String).join(", ")}`;
    case "unrecognized_keys":
      return `Unknown field${issue.keys.length === 1 ? "" : "s"}: ${issue.keys.join(", ")}`;
    case "not_multiple_of":
      return `Must be a multiple of ${n(issue.divisor)}`;
    case "invalid_union":
      return "Not an accepted value";
    default:
      return undefined;
  }
}

z.config({ customError: issueInWords });
