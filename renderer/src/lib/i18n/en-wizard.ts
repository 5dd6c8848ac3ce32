/** The guided wizard (issue 16). Keys `wizard.*`; the zh-CN file has the same keys. */
export const enWizard = {} as const;
