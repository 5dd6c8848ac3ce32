/** The app's pages; plain state instead of a router, since there are no deep links to support. */
export type Page = 'wizard' | 'servers' | 'jobs' | 'settings';
