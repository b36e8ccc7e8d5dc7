import { defineConfig } from "prisma/config";

// Prisma CLI configuration. Only `prisma generate` (scripts/prisma-generate.sh) and Prisma
// Studio use it here: migrations are created by scripts/create-migration.ts (wasm schema
// engine) and applied by the app itself (server/data/migrate.ts), because Prisma's native
// schema engine cannot be downloaded in our environments.
//
// Never use `env("DATABASE_URL")` from prisma/config: it throws when the variable is unset,
// which breaks `npm install` (postinstall runs generate) on a clean checkout.
export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations/sqlite" },
  datasource: { url: process.env.DATABASE_URL ?? "file:./data/playform.db" },
});
