/**
 * A database URL with another database name. Its own module, without imports: every test file's
 * setup (worker-database.ts) needs it, and template-databases.ts would load TypeORM, PGlite and
 * the migrations into every file's realm, unit specs included (~0.5 s of CPU each).
 */
export const databaseUrlNamed = (base: string, name: string): string => {
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
};
