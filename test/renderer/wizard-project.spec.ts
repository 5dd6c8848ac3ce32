import { fireEvent, screen, waitFor, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it } from 'vitest';
import type { WizardStateData } from '../../electron/shared/schemas-wizard';
import { setApiForTests } from '../../renderer/src/lib/api';
import { FakeApi } from './fake-api';
import { installVaultFake, makeSecret } from './fakes/vault';
import { installWizardFake, makeWizardState, type WizardFake } from './fakes/wizard';
import { currentStep, renderWizard } from './wizard-render';

let api: FakeApi;
let wizard: WizardFake;

const BUILD = '/home/me/agent/tutorial/opencode_build_abc123';

function project(overrides: Partial<NonNullable<WizardStateData['project']>> = {}): NonNullable<WizardStateData['project']> {
  return {
    mode: 'scaffold',
    projectDir: '/home/me/agent',
    buildId: 'abc123',
    buildDir: BUILD,
    collectorFile: `${BUILD}/get_training_dataset_item_list.py`,
    episodeFile: `${BUILD}/run_episode_once.py`,
    rewardStyle: 'native',
    python: null,
    dataset: null,
    episode: null,
    ...overrides,
  };
}

const text = (element: Element | null): string => (element?.textContent ?? '').replace(/\s+/g, ' ').trim();
const box = (name: string): HTMLInputElement => within(currentStep()).getByRole('textbox', { name });
const button = (name: string): HTMLElement => within(currentStep()).getByRole('button', { name });

beforeEach(() => {
  api = new FakeApi();
  installVaultFake(api, { status: 'unlocked', secrets: [makeSecret()] });
  setApiForTests(api);
});

describe('step 1: the project folder and its scripts', () => {
  beforeEach(() => {
    wizard = installWizardFake(api, { done: ['llm'], state: makeWizardState({ current: 'project' }, ['llm']) });
  });

  it('creates the scripts (reward style, agent command, build id), then shows where they are and looks for Python there', async () => {
    await renderWizard(api);
    await fireEvent.input(box('Project folder (absolute path)'), { target: { value: '/home/me/agent' } });
    expect(within(currentStep()).getByRole('radio', { name: 'Create new scripts' })).toHaveProperty('checked', true);
    await fireEvent.click(within(currentStep()).getByRole('radio', { name: 'LLM as judge' }));
    await fireEvent.input(box('Command that runs your agent (optional)'), { target: { value: 'python agent.py --item {item_id}' } });
    await fireEvent.input(box('Build id (optional)'), { target: { value: 'abc123' } });
    await fireEvent.click(button('Create the scripts'));

    const current = await within(currentStep()).findByTestId('wizard-project-current');
    expect(api.requestsOn('wizard:set-project')).toEqual([
      { mode: 'scaffold', projectDir: '/home/me/agent', rewardStyle: 'judge', agentCommand: 'python agent.py --item {item_id}', buildId: 'abc123' },
    ]);
    expect(text(current)).toContain(`Folder: ${BUILD}`);
    expect(text(current)).toContain(`Episode runner: ${BUILD}/run_episode_once.py`);
    await waitFor(() => expect(api.requestsOn('jobs:python')).toEqual([{ projectDir: '/home/me/agent', extra: null }]));
  });

  it('shows the placeholders in the example and asks before creating with a command that has no {item_id} (issue 32)', async () => {
    await renderWizard(api);
    const command = box('Command that runs your agent (optional)');
    expect(command.getAttribute('placeholder')).toBe('{python} my_agent.py --item {item_id}');
    expect(text(document.getElementById(command.getAttribute('aria-describedby') ?? ''))).toContain('{item_id} becomes the item’s id');
    await fireEvent.input(box('Project folder (absolute path)'), { target: { value: '/home/me/agent' } });
    await fireEvent.input(command, { target: { value: 'python agent.py' } });
    await fireEvent.click(button('Create the scripts'));
    const warning = await within(currentStep()).findByTestId('wizard-project-no-item-id');
    expect(text(warning)).toContain('This command has no {item_id}');
    expect(api.requestsOn('wizard:set-project')).toEqual([]);
    await fireEvent.click(within(warning).getByRole('button', { name: 'Create without {item_id}' }));
    await within(currentStep()).findByTestId('wizard-project-current');
    expect(api.requestsOn('wizard:set-project')).toEqual([{ mode: 'scaffold', projectDir: '/home/me/agent', rewardStyle: 'native', agentCommand: 'python agent.py', buildId: null }]);
  });

  it('uses existing scripts in adopt mode', async () => {
    await renderWizard(api);
    await fireEvent.input(box('Project folder (absolute path)'), { target: { value: '/home/me/agent' } });
    await fireEvent.click(within(currentStep()).getByRole('radio', { name: 'Use my existing scripts' }));
    expect(within(currentStep()).queryByRole('radio', { name: 'LLM as judge' })).toBeNull();
    await fireEvent.input(box('Dataset collector file'), { target: { value: '/home/me/agent/data.py' } });
    await fireEvent.input(box('Episode runner file'), { target: { value: '/home/me/agent/run.py' } });
    await fireEvent.click(button('Use these files'));
    await within(currentStep()).findByTestId('wizard-project-current');
    expect(api.requestsOn('wizard:set-project')).toEqual([
      { mode: 'adopt', projectDir: '/home/me/agent', collectorFile: '/home/me/agent/data.py', episodeFile: '/home/me/agent/run.py' },
    ]);
  });

  it('refuses a relative folder and a bad build id next to the fields, focuses the first, and sends nothing', async () => {
    await renderWizard(api);
    await fireEvent.input(box('Project folder (absolute path)'), { target: { value: 'my-agent' } });
    await fireEvent.input(box('Build id (optional)'), { target: { value: 'no/slashes' } });
    await fireEvent.click(button('Create the scripts'));
    const folder = box('Project folder (absolute path)');
    expect(folder.getAttribute('aria-invalid')).toBe('true');
    expect(text(document.getElementById(folder.getAttribute('aria-describedby')!))).toContain('absolute path of an existing folder');
    expect(box('Build id (optional)').getAttribute('aria-invalid')).toBe('true');
    await waitFor(() => expect(document.activeElement).toBe(folder));
    expect(api.requestsOn('wizard:set-project')).toEqual([]);
  });

  it.each([
    ['WIZARD_FILE_EXISTS', `${BUILD}/run_episode_once.py already exists with other content; the wizard does not write over your files. Choose another build id.`, 'Read the differences'],
    ['PROJECT_INVALID', 'The project folder /home/me/nope does not exist. Create it (or pick an existing folder), then choose it again.', 'Check that the folder exists'],
    ['WIZARD_STEP_LOCKED', '"Agent project" needs these steps done first: Debug LLM (the LLM endpoint must answer a test).', 'Complete the steps this one needs first'],
  ] as const)('shows %s from the backend with its fix', async (code, message, help) => {
    api.failNext('wizard:set-project', { code, message });
    await renderWizard(api);
    await fireEvent.input(box('Project folder (absolute path)'), { target: { value: '/home/me/nope' } });
    await fireEvent.click(button('Create the scripts'));
    const banner = await within(currentStep()).findByTestId('error-banner');
    expect(banner.dataset.errorCode).toBe(code);
    expect(text(banner)).toContain(help);
    expect(text(banner)).toContain(message);
    expect(within(currentStep()).queryByTestId('wizard-project-current')).toBeNull();
  });
});

describe('step 1: the Python interpreter', () => {
  beforeEach(() => {
    wizard = installWizardFake(api, { done: ['llm'], state: makeWizardState({ current: 'project', project: project() }, ['llm']) });
  });

  it('lists each interpreter with path, source, version and whether ajet is installed, with the install hint', async () => {
    await renderWizard(api);
    const list = await within(currentStep()).findByTestId('wizard-python-list');
    const items = within(list).getAllByTestId('wizard-python-item');
    expect(items.map((i) => i.dataset.path)).toEqual(['/home/me/agent/.venv/bin/python', '/usr/bin/python3']);
    expect(text(items[0]!)).toContain('project virtualenv');
    expect(text(items[0]!)).toContain('Python 3.11.2');
    expect(text(items[0]!)).toContain('AgentJet client 0.3.1 installed');
    expect(text(items[0]!)).toContain('recommended');
    expect(text(items[1]!)).toContain('PATH');
    expect(text(items[1]!)).toContain('AgentJet client not installed');
    expect(text(within(currentStep()).getByTestId('wizard-python-install-hint'))).toContain('pip install agentjet');
    expect(text(within(currentStep()).getByTestId('wizard-python-current'))).toContain('Not chosen yet');
  });

  it('sets the chosen interpreter through wizard:set-python', async () => {
    await renderWizard(api);
    const select = within(currentStep()).getByRole('combobox', { name: 'Python interpreter' }) as HTMLSelectElement;
    await waitFor(() => expect(select.value).toBe('/home/me/agent/.venv/bin/python'));
    await fireEvent.change(select, { target: { value: '/usr/bin/python3' } });
    await fireEvent.click(button('Use this interpreter'));
    await waitFor(() => expect(text(within(currentStep()).getByTestId('wizard-python-current'))).toBe('The project runs with /usr/bin/python3'));
    expect(api.requestsOn('wizard:set-python')).toEqual([{ python: '/usr/bin/python3' }]);
  });

  it('checks another interpreter typed by path, then offers it', async () => {
    await renderWizard(api);
    await fireEvent.input(box('Other interpreter (absolute path)'), { target: { value: 'python3' } });
    await fireEvent.click(button('Check it'));
    expect(box('Other interpreter (absolute path)').getAttribute('aria-invalid')).toBe('true');
    await fireEvent.input(box('Other interpreter (absolute path)'), { target: { value: '/opt/conda/bin/python' } });
    await fireEvent.click(button('Check it'));
    const select = within(currentStep()).getByRole('combobox', { name: 'Python interpreter' }) as HTMLSelectElement;
    await waitFor(() => expect(select.value).toBe('/opt/conda/bin/python'));
    expect(api.requestsOn('jobs:python').at(-1)).toEqual({ projectDir: '/home/me/agent', extra: '/opt/conda/bin/python' });
    expect(text(within(currentStep()).getAllByTestId('wizard-python-item').at(-1)!)).toContain('typed by you');
  });

  it('shows PYTHON_NOT_FOUND with its fix', async () => {
    api.failNext('wizard:set-python', { code: 'PYTHON_NOT_FOUND', message: '/usr/bin/python3 cannot be used as the project\'s Python: it does not run. Choose another interpreter.' });
    await renderWizard(api);
    await fireEvent.click(button('Use this interpreter'));
    const banner = await within(currentStep()).findByTestId('error-banner');
    expect(banner.dataset.errorCode).toBe('PYTHON_NOT_FOUND');
    expect(text(banner)).toContain('Install Python 3');
  });
});

describe('step 1: the dataset and episode tests', () => {
  beforeEach(() => {
    wizard = installWizardFake(api, { done: ['llm'], state: makeWizardState({ current: 'project', project: project({ python: '/home/me/agent/.venv/bin/python' }) }, ['llm']) });
  });

  async function runDataset(items: unknown[], count = items.length): Promise<string> {
    await fireEvent.click(button('Test dataset'));
    const job = await within(currentStep()).findByTestId('wizard-job');
    expect(job.dataset.state).toBe('running');
    expect(within(job).getAllByRole('status').map((s) => s.textContent)).toContain('Running…');
    // The live log of the run (JobLogView, named by the job's label).
    expect(within(job).getByRole('region', { name: 'Test dataset' })).toBeTruthy();
    const jobId = job.dataset.jobId!;
    wizard.updateJob(jobId, { state: 'succeeded', exitCode: 0, durationMs: 800, endedAt: '2026-12-04T10:00:01.000Z', result: { reward: null, count, items, raw: {} } });
    return jobId;
  }

  it('runs the collector as a job and shows its count and first items when it ends', async () => {
    await renderWizard(api);
    await runDataset(['task-a', 'task-b', 'task-c']);
    expect(text(await within(currentStep()).findByTestId('wizard-dataset-count'))).toBe('3 items');
    const items = within(within(currentStep()).getByTestId('wizard-dataset-items')).getAllByRole('listitem');
    expect(items.map((li) => text(li))).toEqual(['task-a', 'task-b', 'task-c']);
    // Numbered from 1, as people count (issue 32: it started at 0).
    expect(within(currentStep()).getByTestId('wizard-dataset-items').getAttribute('start')).toBeNull();
    expect(api.requestsOn('wizard:test-dataset')).toEqual([{}]);
  });

  it('offers the first items to run by their id: a string, a dict\'s id or task_id, else the position', async () => {
    await renderWizard(api);
    await runDataset([{ task_id: 't-17', q: 'add 2+2' }, { id: 42, q: 'sort' }, { q: 'no id' }, 'plain'], 120);
    expect(text(await within(currentStep()).findByTestId('wizard-dataset-count'))).toBe('120 items');
    const select = within(currentStep()).getByRole('combobox', { name: 'Item to run' }) as HTMLSelectElement;
    expect([...select.options].map((o) => o.value)).toEqual(['t-17', '42', '2', 'plain']);
    await fireEvent.change(select, { target: { value: '42' } });
    await fireEvent.click(button('Test episode'));
    expect(api.requestsOn('wizard:test-episode')).toEqual([{ itemId: '42' }]);
  });

  it('runs one episode and shows its reward and duration; the backend then marks the step done', async () => {
    await renderWizard(api);
    await runDataset(['task-a']);
    expect(text(await within(currentStep()).findByTestId('wizard-dataset-count'))).toBe('1 item');
    await fireEvent.click(button('Test episode'));
    await waitFor(() => expect(within(currentStep()).getAllByTestId('wizard-job')).toHaveLength(2));
    const episodeJob = within(currentStep()).getAllByTestId('wizard-job')[1]!;
    expect(within(currentStep()).queryByTestId('wizard-episode-result')).toBeNull();
    wizard.updateJob(episodeJob.dataset.jobId!, { state: 'succeeded', exitCode: 0, durationMs: 400, result: { reward: 1, count: null, items: [], raw: { reward: 1 } } });
    expect(text(await within(currentStep()).findByTestId('wizard-episode-result'))).toBe('Reward 1 in 0.4 s');
    expect(api.requestsOn('wizard:test-episode')).toEqual([{ itemId: 'task-a' }]);
    await waitFor(() => expect(screen.getByTestId('wizard-step-project').dataset.status).toBe('done'));
  });

  it('shows where a crashed episode failed: the file and line of the traceback, the exception, and the fix', async () => {
    await renderWizard(api);
    await runDataset(['task-a']);
    await within(currentStep()).findByTestId('wizard-dataset-count');
    await fireEvent.click(button('Test episode'));
    await waitFor(() => expect(within(currentStep()).getAllByTestId('wizard-job')).toHaveLength(2));
    const jobId = within(currentStep()).getAllByTestId('wizard-job')[1]!.dataset.jobId!;
    wizard.updateJob(jobId, {
      state: 'failed',
      exitCode: 1,
      durationMs: 300,
      failure: {
        code: 'JOB_CRASHED',
        message: 'run_episode_once.py stopped with ZeroDivisionError at run_episode_once.py:12.',
        traceback: { file: `${BUILD}/run_episode_once.py`, line: 12, exception: 'ZeroDivisionError: division by zero', text: 'Traceback (most recent call last):\n  ...' },
      },
    });
    const traceback = await within(currentStep()).findByTestId('wizard-traceback');
    expect(text(traceback)).toContain(`${BUILD}/run_episode_once.py:12`);
    expect(text(traceback)).toContain('ZeroDivisionError: division by zero');
    expect(text(within(currentStep()).getByTestId('wizard-episode-result'))).toBe('The run failed.');
    const banner = within(currentStep()).getByTestId('error-banner');
    expect(banner.dataset.errorCode).toBe('JOB_CRASHED');
    expect(text(banner)).toContain('Open the file and line named in the traceback');
    expect(screen.getByTestId('wizard-step-project').dataset.status).toBe('todo');
  });

  it('shows a failed collector with its traceback and offers no items', async () => {
    await renderWizard(api);
    await fireEvent.click(button('Test dataset'));
    const job = await within(currentStep()).findByTestId('wizard-job');
    wizard.updateJob(job.dataset.jobId!, {
      state: 'failed',
      exitCode: 1,
      failure: { code: 'JOB_CRASHED', message: 'The collector raised.', traceback: { file: `${BUILD}/get_training_dataset_item_list.py`, line: 3, exception: 'FileNotFoundError: data.jsonl', text: '' } },
    });
    expect(text(await within(currentStep()).findByTestId('wizard-traceback'))).toContain('get_training_dataset_item_list.py:3 FileNotFoundError: data.jsonl');
    expect(within(currentStep()).queryByTestId('wizard-dataset-count')).toBeNull();
    await fireEvent.click(button('Test episode'));
    expect(api.requestsOn('wizard:test-episode')).toEqual([]);
    expect(text(within(currentStep()).getByRole('combobox', { name: 'Item to run' }).parentElement)).toContain('Test the dataset first');
  });

  it('shows the end of a run that ended before its start was answered', async () => {
    await renderWizard(api);
    wizard.endsAtOnce = { state: 'succeeded', exitCode: 0, durationMs: 90, result: { reward: null, count: 2, items: ['x', 'y'], raw: {} } };
    await fireEvent.click(button('Test dataset'));
    expect(text(await within(currentStep()).findByTestId('wizard-dataset-count'))).toBe('2 items');
    expect(within(currentStep()).getByTestId('wizard-job').dataset.state).toBe('succeeded');
  });

  it.each([
    ['test-dataset', 'Test dataset', 'PYTHON_NOT_FOUND', 'No Python interpreter runs on this computer.', 'Install Python 3'],
    ['test-episode', 'Test episode', 'AJET_NOT_INSTALLED', 'AgentJet\'s client ("ajet") cannot be imported by /usr/bin/python3. pip install agentjet', 'Install it into the chosen interpreter'],
    ['test-episode', 'Test episode', 'WIZARD_STEP_LOCKED', '"Agent project" needs these steps done first: Debug LLM.', 'Complete the steps this one needs first'],
  ] as const)('shows a refused %s (%s → %s) with its fix', async (channel, name, code, message, help) => {
    wizard.state = { ...wizard.state, project: project({ dataset: { jobId: 'job-old', count: 1, first: ['task-a'], at: '2026-12-04T10:00:00.000Z' } }) };
    api.failNext(`wizard:${channel}`, { code, message });
    await renderWizard(api);
    await fireEvent.click(button(name));
    const banner = await within(currentStep()).findByTestId('error-banner');
    expect(banner.dataset.errorCode).toBe(code);
    expect(text(banner)).toContain(help);
    expect(text(banner)).toContain(message);
    await fireEvent.click(within(banner).getByRole('button', { name: 'Dismiss' }));
    expect(within(currentStep()).queryByTestId('error-banner')).toBeNull();
  });
});

describe('step 1: another project folder', () => {
  it('does not show the tests of the folder used before', async () => {
    wizard = installWizardFake(api, { done: ['llm'], state: makeWizardState({ current: 'project', project: project() }, ['llm']) });
    await renderWizard(api);
    await fireEvent.click(button('Test dataset'));
    const job = await within(currentStep()).findByTestId('wizard-job');
    wizard.updateJob(job.dataset.jobId!, { state: 'succeeded', result: { reward: null, count: 2, items: ['a', 'b'], raw: {} } });
    await within(currentStep()).findByTestId('wizard-dataset-count');

    await fireEvent.input(box('Project folder (absolute path)'), { target: { value: '/home/me/other' } });
    await fireEvent.input(box('Build id (optional)'), { target: { value: '' } });
    await fireEvent.click(button('Create the scripts'));
    await waitFor(() => expect(text(within(currentStep()).getByTestId('wizard-project-current'))).toContain('/home/me/other/tutorial/'));
    expect(within(currentStep()).queryByTestId('wizard-dataset-count')).toBeNull();
    expect(within(currentStep()).queryByTestId('wizard-job')).toBeNull();
  });
});
