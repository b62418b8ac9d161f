// ESLint (flat config): Next.js's rules (core web vitals, React, React hooks, jsx-a11y), typescript-eslint
// with type information, and the dependency direction of the layers (docs/architecture.md).
import js from "@eslint/js";
import nextCoreWebVitals from "eslint-config-next/core-web-vitals";
import tseslint from "typescript-eslint";

/** Imports a layer may not make: `from` globs (relative or aliased) per layer. */
const forbid = (...groups) => ({
  "no-restricted-imports": [
    "error",
    {
      patterns: groups.map(([group, message]) => ({ group, message })),
    },
  ],
});

const UP_FROM_DOMAIN = [
  [["next", "next/*", "@trpc/*", "trpc-to-openapi", "inngest", "inngest/*", "react", "react-dom"], "server/domain is framework-free: no Next.js, tRPC, Inngest or React (docs/architecture.md)."],
  [["**/sdk", "**/sdk/*", "**/routers", "**/routers/*", "**/trpc/*", "**/jobs/runner*", "**/jobs/execute*", "**/jobs/claim*", "**/jobs/lanes*", "**/jobs/handlers*", "**/rest/*", "**/inngest/*", "**/app/*", "**/runtime"], "server/domain must not import the layers that call it (routers, sdk, jobs, inngest, app)."],
];
const UP_FROM_BASE = [
  [["**/domain/*", "**/domain/**", "**/sdk/*", "**/routers/*", "**/trpc/*", "**/jobs/*", "**/inngest/*", "**/app/*"], "server/db, server/shared and server/chain depend on nothing above them."],
];

export default tseslint.config(
  {
    ignores: [
      "node_modules/**",
      ".next*/**",
      ".data/**",
      "server/db/generated/**",
      "sdk/dist/**",
      "test-results/**",
      "playwright-report/**",
      "bench/.tmp/**",
      "coverage/**",
      "next-env.d.ts",
    ],
  },
  js.configs.recommended,
  ...nextCoreWebVitals,
  ...tseslint.configs.recommendedTypeChecked.map((c) => ({ ...c, files: ["**/*.{ts,tsx,mts,cts}"] })),
  {
    files: ["**/*.{ts,tsx,mts,cts}"],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      // tRPC, zod and Prisma results are typed; `any` comes in only from JSON bodies and is checked there.
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/restrict-template-expressions": ["error", { allowNumber: true, allowBoolean: true, allowNullish: true }],
      "@typescript-eslint/require-await": "off",
      "@typescript-eslint/only-throw-error": "error",
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": ["error", { checksVoidReturn: { attributes: false } }],
    },
  },
  {
    files: ["**/*.{js,mjs,cjs}"],
    languageOptions: { globals: { process: "readonly", console: "readonly", URL: "readonly", fetch: "readonly", setTimeout: "readonly", clearTimeout: "readonly", Buffer: "readonly" } },
  },
  {
    // HTTP and browser tests read JSON bodies of the contract and assert them field by field.
    files: ["tests/**/*.ts", "e2e/**/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  // The dependency direction: app → routers | sdk | inngest | jobs → domain → db | shared | chain.
  { files: ["server/domain/**/*.ts"], ignores: ["server/domain/**/*.test.ts"], rules: forbid(...UP_FROM_DOMAIN) },
  { files: ["server/db/**/*.ts", "server/shared/**/*.ts", "server/chain/**/*.ts"], ignores: ["**/*.test.ts"], rules: forbid(...UP_FROM_BASE) },
  // No function in server/ longer than 120 lines (tests aside): a longer one is split by concern,
  // as the rules core is (rules/decide*.ts).
  { files: ["server/**/*.{ts,tsx}"], ignores: ["server/**/*.test.{ts,tsx}"], rules: { "max-lines-per-function": ["error", { max: 120 }] } },
);
