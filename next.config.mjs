/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // Native / WASM packages stay outside the bundle and load from node_modules at run time.
  serverExternalPackages: ["@electric-sql/pglite", "pglite-prisma-adapter", "@prisma/adapter-pg", "pg", "hardhat", "ioredis", "rate-limiter-flexible"],
  distDir: process.env.NEXT_DIST_DIR || ".next",
  // The build type-checks the app only; tests and scripts are checked by `npm run typecheck`.
  // `npm test` sets NEXT_SKIP_TYPECHECK=1 for its build: its own `tsc --noEmit` (a superset, run
  // beside the build) fails the run on any type error.
  // No portal page may be framed; /portal/embed sets its own frame-ancestors (the business's origins).
  async headers() {
    const deny = [
      { key: "Content-Security-Policy", value: "frame-ancestors 'none'" },
      { key: "X-Frame-Options", value: "DENY" },
    ];
    return [
      { source: "/portal", headers: deny },
      { source: "/portal/:path((?!embed$).*)", headers: deny },
    ];
  },
  // A production build runs once per source change (scripts/ensure.mjs checks): writing
  // Turbopack's build cache to disk only lengthens a first start.
  experimental: { turbopackFileSystemCacheForBuild: false },
  typescript: { tsconfigPath: "tsconfig.build.json", ignoreBuildErrors: process.env.NEXT_SKIP_TYPECHECK === "1" },
};

export default nextConfig;
