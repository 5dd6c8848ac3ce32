import { fireEvent, screen, waitFor, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it } from 'vitest';
import { TrainingForm } from '../../electron/shared/schemas-wizard';
import { setApiForTests } from '../../renderer/src/lib/api';
import { FakeApi } from './fake-api';
import { installVaultFake } from './fakes/vault';
import { installWizardFake, makeCodeFile, makeWizardState, type WizardFake } from './fakes/wizard';
import { currentStep, renderWizard } from './wizard-render';

let api: FakeApi;
let wizard: WizardFake;

const BUILD = '/home/me/agent/tutorial/opencode_build_abc123';
const DIFF = ['--- a/agent_roll.py', '+++ b/agent_roll.py', '@@ -1,3 +1,3 @@', '-EPOCHS = 5', '+EPOCHS = 10000', ' BATCH = 32'].join('\n');

const text = (element: Element | null): string => (element?.textContent ?? '').replace(/\s+/g, ' ').trim();
const field = (name: string): HTMLInputElement => within(currentStep()).getByRole('textbox', { name }) as HTMLInputElement;
const button = (name: string): HTMLElement => within(currentStep()).getByRole('button', { name });
const errorOf = (input: HTMLElement): string =>
  (input.getAttribute('aria-describedby') ?? '')
    .split(' ')
    .filter((id) => id.endsWith('-error'))
    .map((id) => text(document.getElementById(id)))
    .join(' ');

beforeEach(() => {
  api = new FakeApi();
  installVaultFake(api, { status: 'unlocked' });
  setApiForTests(api);
  wizard = installWizardFake(api, {
    done: ['llm', 'project'],
    state: makeWizardState(
      {
        current: 'code',
        suggestedForm: { experimentName: 'opencode_build_abc123', modelPath: '/models/Qwen2.5-7B', modelPathSource: 'profile "Qwen 7B": its model mount', modelPathProfile: 'Qwen 7B' },
      },
      ['llm', 'project'],
    ),
  });
});

describe('step 2: the training form', () => {
  it('starts from the backend’s suggestion and the schema’s defaults', async () => {
    await renderWizard(api);
    expect(field('Experiment name').value).toBe('opencode_build_abc123');
    expect(field('Model path inside the container').value).toBe('/models/Qwen2.5-7B');
    expect(text(within(currentStep()).getByTestId('wizard-code-suggested'))).toBe('Suggested from the model folder that profile “Qwen 7B” mounts.');
    expect((within(currentStep()).getByRole('combobox', { name: 'Algorithm' }) as HTMLSelectElement).value).toBe('grpo');
    expect(field('GRPO group size').value).toBe('4');
    // A first run's values (issue 32), the real-training ones one click away.
    expect(field('Epochs').value).toBe('3');
    expect(field('Batch size').value).toBe('4');
    expect(field('GPUs per node').value).toBe('1');
    expect(text(screen.getByTestId('wizard-code-first-run'))).toContain('batch 4, 3 epochs and 1 GPU per node');
    await fireEvent.click(screen.getByTestId('wizard-code-real-values'));
    expect(field('Epochs').value).toBe('10000');
    expect(field('Batch size').value).toBe('32');
    expect(screen.queryByTestId('wizard-code-first-run')).toBeNull();
    expect(field('GPUs per node').value).toBe('8');
    expect(field('Discard episode timeout (s)').value).toBe('240');
    expect(field('LoRA rank').value).toBe('0');
    expect(within(currentStep()).getByRole('checkbox', { name: 'Force restart the engine (ends training for every client)' })).toHaveProperty('checked', false);
  });

  it('starts from the generated code’s form when there is one', async () => {
    const form = TrainingForm.parse({ experimentName: 'run_7', modelPath: '/models/m', epochs: 3, forceRestart: true });
    wizard.state = { ...wizard.state, code: { form, files: [], compiledAt: '2026-12-04T10:05:00.000Z' } };
    await renderWizard(api);
    expect(field('Experiment name').value).toBe('run_7');
    expect(field('Epochs').value).toBe('3');
    expect(within(currentStep()).getByRole('checkbox', { name: 'Force restart the engine (ends training for every client)' })).toHaveProperty('checked', true);
  });

  it('asks no model path of a first run before any profile exists: empty is sent, and the hint says why', async () => {
    wizard.state = { ...wizard.state, suggestedForm: { experimentName: 'opencode_build_abc123', modelPath: null, modelPathSource: null, modelPathProfile: null } };
    await renderWizard(api);
    const modelPath = field('Model path inside the container');
    expect(modelPath.value).toBe('');
    expect(within(currentStep()).queryByTestId('wizard-code-suggested')).toBeNull();
    expect(text(document.getElementById(`${modelPath.id}-hint`))).toContain('You may leave it empty: the dry run trains nothing and needs none');
    await fireEvent.click(button('Preview the files'));
    await within(currentStep()).findByTestId('wizard-code-preview');
    expect(errorOf(modelPath)).toBe('');
    expect(api.requestsOn('wizard:preview-code')).toEqual([expect.objectContaining({ experimentName: 'opencode_build_abc123', modelPath: '' })]);
  });

  it('refuses invalid fields with a message next to each, focuses the first, and sends nothing', async () => {
    await renderWizard(api);
    await fireEvent.input(field('Experiment name'), { target: { value: 'has spaces' } });
    await fireEvent.input(field('Epochs'), { target: { value: '0' } });
    await fireEvent.input(field('Model path inside the container'), { target: { value: `/${'m'.repeat(1024)}` } });
    await fireEvent.click(button('Preview the files'));
    expect(errorOf(field('Experiment name'))).toContain('Letters, digits, _ . - only');
    expect(errorOf(field('Epochs'))).toBe('A whole number from 1 to 100000.');
    expect(errorOf(field('Model path inside the container'))).toBe('At most 1024 characters.');
    expect(field('Epochs').getAttribute('aria-invalid')).toBe('true');
    await waitFor(() => expect(document.activeElement).toBe(field('Experiment name')));
    expect(api.requestsOn('wizard:preview-code')).toEqual([]);
  });

  it('applies the LoRA rules: rank > 0 needs safetensors, layered summon and a learning rate above 1e-5', async () => {
    await renderWizard(api);
    await fireEvent.input(field('Experiment name'), { target: { value: 'bad name' } });
    await fireEvent.input(field('LoRA rank'), { target: { value: '8' } });
    await fireEvent.input(field('Learning rate'), { target: { value: '1e-6' } });
    await fireEvent.click(button('Preview the files'));
    const loadFormat = within(currentStep()).getByRole('combobox', { name: 'Load format' });
    const summon = within(currentStep()).getByRole('checkbox', { name: 'Layered summon' });
    // Shown together with the other fields' errors, not only once those are fixed.
    expect(errorOf(loadFormat)).toBe('LoRA (rank above 0) needs load format “safetensors”.');
    expect(errorOf(summon)).toBe('LoRA (rank above 0) needs layered summon on.');
    expect(errorOf(field('Learning rate'))).toBe('LoRA (rank above 0) needs a learning rate above 1e-5, e.g. 3e-5.');
    await waitFor(() => expect(document.activeElement).toBe(field('Experiment name')));

    await fireEvent.input(field('Experiment name'), { target: { value: 'lora_run' } });
    await fireEvent.click(button('Preview the files'));
    await waitFor(() => expect(document.activeElement).toBe(loadFormat));
    expect(api.requestsOn('wizard:preview-code')).toEqual([]);

    await fireEvent.change(loadFormat, { target: { value: 'safetensors' } });
    await fireEvent.click(summon);
    await fireEvent.input(field('Learning rate'), { target: { value: '3e-5' } });
    expect(errorOf(field('Learning rate'))).toBe('');
    await fireEvent.click(button('Preview the files'));
    await within(currentStep()).findByTestId('wizard-code-preview');
    expect(api.requestsOn('wizard:preview-code')).toEqual([
      expect.objectContaining({ experimentName: 'lora_run', lora: { rank: 8, alpha: 16, targetModules: 'all-linear', loadFormat: 'safetensors', layeredSummon: true, lr: 3e-5 } }),
    ]);
  });
});

describe('step 2: preview and generate', () => {
  it('previews two new files, generates them, and shows their paths checked with py_compile', async () => {
    await renderWizard(api);
    await fireEvent.click(button('Preview the files'));
    const preview = await within(currentStep()).findByTestId('wizard-code-preview');
    const files = within(preview).getAllByTestId('wizard-code-file');
    expect(files.map((f) => [f.dataset.name, f.dataset.status])).toEqual([
      ['agent_roll.py', 'new'],
      ['agent_roll_one_episode_debug.py', 'new'],
    ]);
    expect(text(files[0]!)).toContain('new file');
    expect(within(preview).queryByRole('checkbox')).toBeNull();

    await fireEvent.click(button('Generate the files'));
    const result = await within(currentStep()).findByTestId('wizard-code-result');
    expect(api.requestsOn('wizard:generate-code')).toEqual([{ form: expect.objectContaining({ experimentName: 'opencode_build_abc123', modelPath: '/models/Qwen2.5-7B' }), overwrite: [] }]);
    expect(text(result)).toContain('checked with py_compile');
    expect(text(result)).toContain(`${BUILD}/agent_roll.py`);
    expect(text(result)).toContain(`${BUILD}/agent_roll_one_episode_debug.py`);
    await waitFor(() => expect(screen.getByTestId('wizard-step-code').dataset.status).toBe('done'));
    // The preview described the files before the write: it is gone.
    expect(within(currentStep()).queryByTestId('wizard-code-preview')).toBeNull();
  });

  it('previews (never writes) when Enter submits the form from a field', async () => {
    await renderWizard(api);
    await fireEvent.submit(field('Epochs').form!);
    await within(currentStep()).findByTestId('wizard-code-preview');
    expect(api.requestsOn('wizard:preview-code')).toHaveLength(1);
    expect(api.requestsOn('wizard:generate-code')).toEqual([]);
  });

  it('generates straight away when nothing would be written over (the preview is made on the way)', async () => {
    await renderWizard(api);
    await fireEvent.click(button('Generate the files'));
    await within(currentStep()).findByTestId('wizard-code-result');
    expect(api.requestsOn('wizard:preview-code')).toHaveLength(1);
    expect(api.requestsOn('wizard:generate-code')).toHaveLength(1);
  });

  it('writes over a changed file only after its “Overwrite … (I saw the changes)” box is ticked', async () => {
    wizard.preview = {
      files: [
        makeCodeFile('agent_roll.py', { exists: true, changed: true, diff: DIFF }),
        makeCodeFile('agent_roll_one_episode_debug.py', { exists: true, changed: false }),
      ],
    };
    await renderWizard(api);
    await fireEvent.click(button('Preview the files'));
    const preview = await within(currentStep()).findByTestId('wizard-code-preview');
    const changed = within(preview).getAllByTestId('wizard-code-file')[0]!;
    expect(changed.dataset.status).toBe('changed');
    const diff = within(changed).getByRole('region', { name: 'Changes to agent_roll.py' });
    expect(diff.textContent).toContain('-EPOCHS = 5');
    expect(diff.textContent).toContain('+EPOCHS = 10000');
    expect(text(within(preview).getAllByTestId('wizard-code-file')[1]!)).toContain('unchanged');

    await fireEvent.click(button('Generate the files'));
    const box = within(preview).getByRole('checkbox', { name: 'Overwrite agent_roll.py (I saw the changes)' });
    expect(text(await within(currentStep()).findByTestId('wizard-code-needs-overwrite'))).toContain('Tick “Overwrite”');
    await waitFor(() => expect(document.activeElement).toBe(box));
    expect(api.requestsOn('wizard:generate-code')).toEqual([]);

    await fireEvent.click(box);
    expect(within(currentStep()).queryByTestId('wizard-code-needs-overwrite')).toBeNull();
    await fireEvent.click(button('Generate the files'));
    await within(currentStep()).findByTestId('wizard-code-result');
    expect(api.requestsOn('wizard:generate-code')).toEqual([{ form: expect.anything(), overwrite: ['agent_roll.py'] }]);
  });

  it('previews again when the form changed since the preview, and asks for the ticks again', async () => {
    wizard.preview = { files: [makeCodeFile('agent_roll.py', { exists: true, changed: true, diff: DIFF }), makeCodeFile('agent_roll_one_episode_debug.py')] };
    await renderWizard(api);
    await fireEvent.click(button('Preview the files'));
    await fireEvent.click(await within(currentStep()).findByRole('checkbox', { name: 'Overwrite agent_roll.py (I saw the changes)' }));
    await fireEvent.input(field('Epochs'), { target: { value: '12' } });
    expect(within(currentStep()).getByTestId('wizard-code-preview-outdated')).toBeTruthy();
    await fireEvent.click(button('Generate the files'));
    await within(currentStep()).findByTestId('wizard-code-needs-overwrite');
    expect(api.requestsOn('wizard:preview-code')).toHaveLength(2);
    expect(api.requestsOn('wizard:preview-code')[1]).toEqual(expect.objectContaining({ epochs: 12 }));
    expect(within(currentStep()).getByRole('checkbox', { name: 'Overwrite agent_roll.py (I saw the changes)' })).toHaveProperty('checked', false);
    expect(api.requestsOn('wizard:generate-code')).toEqual([]);
  });

  it.each([
    ['generate-code', 'CODE_CHECK_FAILED', 'The generated files do not compile, so they were put back as they were:\n  File "agent_roll.py", line 9', 'fix the form value it names'],
    ['generate-code', 'WIZARD_FILE_EXISTS', `${BUILD}/agent_roll.py already exists with other content. Read the diff, then confirm overwriting agent_roll.py.`, 'Read the differences'],
    ['preview-code', 'PROJECT_INVALID', 'No agent project chosen yet: choose the project folder (scaffold or adopt) in the "Agent project" step first.', 'Check that the folder exists'],
    ['preview-code', 'WIZARD_STEP_LOCKED', '"Training code" needs these steps done first: Agent project.', 'Complete the steps this one needs first'],
  ] as const)('shows a refused %s (%s) with its fix', async (channel, code, message, help) => {
    api.failNext(`wizard:${channel}`, { code, message });
    await renderWizard(api);
    await fireEvent.click(button('Generate the files'));
    const banner = await within(currentStep()).findByTestId('error-banner');
    expect(banner.dataset.errorCode).toBe(code);
    expect(text(banner)).toContain(help);
    expect(within(currentStep()).queryByTestId('wizard-code-result')).toBeNull();
  });
});
