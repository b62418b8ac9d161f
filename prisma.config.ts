// Prisma CLI configuration. The schema engine runs as WASM ("js" engine) through a driver
// adapter, so generate / migrate never download a native binary.
// DATABASE_URL=postgres://… → PostgreSQL; unset → the embedded PGlite database under .data/.
import path from "node:path";
import { defineConfig } from "prisma/config";

export default defineConfig({
  schema: path.join("prisma", "schema.prisma"),
  migrations: { path: path.join("prisma", "migrations") },
  experimental: { adapter: true },
  engine: "js",
  async adapter() {
    const url = process.env.DATABASE_URL;
    if (url && /^postgres(ql)?:\/\//.test(url) && !url.includes("pglite")) {
      const { PrismaPg } = await import("@prisma/adapter-pg");
      return new PrismaPg({ connectionString: url });
    }
    const { PGlite } = await import("@electric-sql/pglite");
    const { PrismaPGlite } = await import("pglite-prisma-adapter");
    const dir = process.env.PGLITE_DIR ?? path.join(".data", "pglite");
    return new PrismaPGlite(new PGlite(dir));
  },
});
