// Runes only: a component written in the legacy syntax (export let, $: …) fails to compile.
export default {
  compilerOptions: { runes: true },
};
