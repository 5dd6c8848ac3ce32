export * from './errors';
export * from './result';
export * from './schemas';
export * from './schemas-servers';
export * from './contract';
export type { ExposedApi } from './api';
export { apiLayout } from './api';
