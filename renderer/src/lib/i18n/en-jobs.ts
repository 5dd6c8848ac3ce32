/** The Jobs page and job views (issue 16). Keys `jobs.*`; the zh-CN file has the same keys. */
export const enJobs = {} as const;
