/** English strings of the browser page's link to its backend (issue 31), spread into `en.ts`; zh-CN-backend.ts has the same keys. */
export const enBackend = {
  'backend.lost': 'Lost the connection to the app backend: what this page shows may be out of date.',
  'backend.retrying': 'Reconnecting now (try {attempts})…',
  'backend.retryIn': 'Next try in {seconds} s (try {attempts}).',
  'backend.retryNow': 'Retry now',
  'backend.tokenRefused': 'The app backend restarted and no longer accepts this page’s token.',
  'backend.tokenRefusedHelp': 'Paste the new address it printed (ending in #token=…) into this tab’s address bar: the page reconnects without a reload.',
  'backend.recovered': 'Reconnected to the app backend; the page shows current data again.',
};
