/**
 * Electron main entry (built to out/main/index.js). Boot only; the wiring lives in ./boot so it can
 * be tested without Electron, and all behaviour lives in the services.
 */
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { app } from 'electron';
import { createAppServices } from '../services/app-services';
import { boot } from './boot';

boot({ createAppServices, mainDir: dirname(fileURLToPath(import.meta.url)) }).catch((error: unknown) => {
  console.error('[main] the app could not start:', error instanceof Error ? error.message : String(error));
  app.exit(1);
});
