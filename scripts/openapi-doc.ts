// Writes the service's OpenAPI document (the one GET /api/openapi.json serves) to a file, for
// `redocly lint` (npm run lint:openapi) and the SDK's type generator (npm run build:sdk).
// Usage: tsx scripts/openapi-doc.ts <out.json>
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { openApiDocument } from "../server/rest/business-rest";

const out = process.argv[2] ?? "openapi.json";
mkdirSync(path.dirname(path.resolve(out)), { recursive: true });
writeFileSync(out, JSON.stringify(openApiDocument(), null, 2) + "\n");
console.log(`OpenAPI document written to ${out}`);
