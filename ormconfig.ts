/**
 * The DataSource for the TypeORM CLI (`npm run typeorm -- migration:show`), built from the same
 * validated environment as the server: PostgreSQL with DATABASE_URL, PGlite under DATA_DIR otherwise.
 * Do not point it at a DATA_DIR a running server holds (PGlite is single-process).
 */
import { DataSource } from 'typeorm';
import { loadAppConfig } from './src/config/app-config';
import { buildDataSourceOptions } from './src/database/data-source-options';

export default new DataSource(buildDataSourceOptions(loadAppConfig()));
