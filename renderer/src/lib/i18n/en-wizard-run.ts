/** The wizard's steps 3–5 (swarm server, debug episode, train). Keys `wizard.run.*`; the zh-CN file has the same keys. */
export const enWizardRun = {} as const;
