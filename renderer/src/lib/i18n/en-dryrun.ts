/** English strings of the dryrun part (issue 15), spread into `en.ts`; zh-CN-dryrun.ts has the same keys. */
export const enDryrun = {
  'dryrun.title': 'This computer (dry run, no GPU)',
};
