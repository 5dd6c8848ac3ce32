/// <reference types="svelte" />
/// <reference types="vite/client" />
import type { ExposedApi } from '../../electron/shared/api';

declare global {
  interface Window {
    /** Set by the Electron preload; absent when the UI runs in a normal browser. */
    api?: ExposedApi;
  }
}

export {};
