import { LABEL_PORT } from '../engines/container-engine';
import { whichScript } from '../native/native-scripts';
import { gib, GIB, hostParam, hostPathWord, noHostReason, noHostSkip, pass, problem, say, skip, type Check } from './check-kit';
import { dfBytesOf } from './engine-checks';
import { hostPortHolder } from '../engines/host-port-holder';

/** Checks run on the engine's host (this computer or the server over SSH) and its ports. */

/** What AgentJet's own docs give the container (`--shm-size=32GB` / 64g); below 16 GiB NCCL and Ray fail early. */
export const SHM_RECOMMENDED_GIB = 16;

export const gpuHost: Check = async (c) => {
  if (c.profile.gpus.mode === 'none') return skip('The profile asks for no GPUs.', say('noGpus'));
  const why = noHostReason(c);
  if (why) return noHostSkip(c, why);
  const result = await c.exec('nvidia-smi -L', 15_000);
  const gpus = result.stdout.split('\n').map((l) => l.trim()).filter((l) => /^GPU \d+:/.test(l));
  if (result.code === 127 || (result.code !== 0 && /not found/i.test(result.stderr))) {
    return problem(
      'fail',
      `nvidia-smi is not installed on ${c.hostLabel}: no NVIDIA driver was found, so the swarm server gets no GPU there.`,
      `Install the NVIDIA driver on ${c.hostLabel} (then nvidia-smi lists the GPUs), or set GPUs to "none".`,
      'nvidia-smi -L',
      c.where,
      say('nvidiaSmiMissing', { host: hostParam(c) }),
    );
  }
  if (result.code !== 0 || gpus.length === 0) {
    const said = (result.stderr.trim() || result.stdout.trim()).split('\n')[0] ?? '';
    return problem(
      'fail',
      `nvidia-smi on ${c.hostLabel} lists no GPU${said ? ` (${said})` : ''}.`,
      'Check the NVIDIA driver there (a reboot after a driver update often helps), or set GPUs to "none".',
      'nvidia-smi',
      c.where,
      say(said ? 'noGpuListedSaid' : 'noGpuListed', { host: hostParam(c), said }),
    );
  }
  const names = gpus.map((g) => g.replace(/\s*\(UUID:.*\)$/, ''));
  if (c.profile.gpus.mode === 'ids') {
    const missing = c.profile.gpus.ids.filter((id) => (/^\d+$/.test(id) ? Number(id) >= gpus.length : !result.stdout.includes(id)));
    if (missing.length > 0) {
      return problem(
        'fail',
        `The profile asks for GPU ${missing.join(', ')}, which ${c.hostLabel} does not have (it has: ${names.join('; ')}).`,
        'Choose GPUs by the index or UUID nvidia-smi -L shows, or "all".',
        'nvidia-smi -L',
        c.where,
        say('gpusMissing', { missing: missing.join(', '), host: hostParam(c), names: names.join('; ') }),
      );
    }
  }
  return pass(`${gpus.length} GPU${gpus.length === 1 ? '' : 's'} on ${c.hostLabel}: ${names.join('; ')}.`, say('gpusFound', { n: gpus.length, host: hostParam(c), names: names.join('; ') }));
};

export const modelDir: Check = async (c) => {
  const model = c.profile.model;
  if (!model) return skip('The profile mounts no model folder.', say('noModelDir'));
  const why = noHostReason(c);
  if (why) return noHostSkip(c, why);
  const p = hostPathWord(model.hostPath);
  const result = await c.exec(`p=${p}; if [ ! -d "$p" ]; then echo missing; elif [ ! -r "$p" ]; then echo unreadable; elif [ -f "$p/config.json" ]; then echo ok; else echo no-config; fi`, 10_000);
  switch (result.stdout.trim()) {
    case 'ok':
      return pass(
        `${model.hostPath} on ${c.hostLabel} has config.json; it goes to ${model.containerPath} in the container (read-only).`,
        say('modelDirReady', { path: model.hostPath, host: hostParam(c), containerPath: model.containerPath }),
      );
    case 'no-config':
      return problem(
        'warn',
        `${model.hostPath} exists on ${c.hostLabel} but has no config.json, so it does not look like a Hugging Face model folder (a folder above the model, or an unfinished download?).`,
        'Point the profile at the folder that holds config.json and the weights.',
        `ls -la ${p}`,
        c.where,
        say('modelNoConfig', { path: model.hostPath, host: hostParam(c) }),
      );
    case 'unreadable':
      return problem('fail', `${model.hostPath} on ${c.hostLabel} cannot be read by this user.`, 'Give this user read access to the folder, or choose another one.', `ls -ld ${p}`, c.where, say('modelUnreadable', { path: model.hostPath, host: hostParam(c) }));
    default:
      return problem(
        'fail',
        `There is no folder ${model.hostPath} on ${c.hostLabel}.`,
        `Download the model there (e.g. with huggingface-cli download <model> --local-dir ${model.hostPath}), or correct the path.`,
        `ls -ld ${p}`,
        c.where,
        say('modelMissing', { path: model.hostPath, host: hostParam(c) }),
      );
  }
};

/** The log, experiments and checkpoints folders: each present and writable, or creatable by this user. */
export const hostDirs: Check = async (c) => {
  const dirs = [c.profile.logDir, c.profile.experimentsDir, c.profile.checkpointsDir].filter((d): d is string => d !== null);
  if (dirs.length === 0) return skip('The profile mounts no log, experiments or checkpoints folder.', say('noHostDirs'));
  const why = noHostReason(c);
  if (why) return noHostSkip(c, why);
  // For each folder: ok, or "create" when its nearest existing parent is writable, else "denied".
  const script = dirs
    .map(
      (d) =>
        `p=${hostPathWord(d)}; if [ -d "$p" ]; then if [ -w "$p" ]; then echo ok; else echo denied; fi; ` +
        `else q="$p"; while [ ! -e "$q" ]; do q=$(dirname "$q"); done; if [ -d "$q" ] && [ -w "$q" ]; then echo create; else echo denied; fi; fi`,
    )
    .join('\n');
  const result = await c.exec(script, 10_000);
  const verdicts = result.stdout.trim().split('\n');
  const toCreate = dirs.filter((_, i) => verdicts[i] === 'create');
  const denied = dirs.filter((_, i) => verdicts[i] !== 'ok' && verdicts[i] !== 'create');
  if (denied.length > 0) {
    return problem(
      'fail',
      `This user cannot write ${denied.join(', ')} on ${c.hostLabel}, nor create ${denied.length === 1 ? 'it' : 'them'}.`,
      'Choose folders this user owns (e.g. under your home), or fix their owner.',
      `ls -ld ${denied.map(hostPathWord).join(' ')}`,
      c.where,
      say('dirsDenied', { dirs: denied.join(', '), host: hostParam(c) }),
    );
  }
  if (toCreate.length > 0) {
    const one = toCreate.length === 1;
    return problem(
      'warn',
      `${toCreate.join(', ')} ${one ? 'does' : 'do'} not exist on ${c.hostLabel} yet; ${one ? 'it' : 'they'} can be created. Left to ${c.engine.wording.product}, a missing folder is created owned by root.`,
      `Create ${one ? 'it' : 'them'} first, as this user:`,
      `mkdir -p ${toCreate.map(hostPathWord).join(' ')}`,
      c.where,
      say('dirsToCreate', { dirs: toCreate.join(', '), host: hostParam(c), product: c.engine.wording.product }),
    );
  }
  return pass(`${dirs.join(', ')} exist on ${c.hostLabel} and this user may write them.`, say('hostDirsWritable', { dirs: dirs.join(', '), host: hostParam(c) }));
};

export const portFree: Check = async (c) => {
  const port = c.profile.port;
  if (await c.engine.isHostPortFree(port)) return pass(`Port ${port} is free on ${c.hostLabel}.`, say('portFree', { port, host: hostParam(c) }));
  // Our own running server holds it: Start finds that container, so this is not a conflict.
  const own = (await c.ownContainers()).find((k) => k.state === 'running' && (k.labels[LABEL_PORT] === undefined || k.labels[LABEL_PORT] === String(port)));
  if (own) return pass(`Port ${port} is held by this profile's own running server (${own.name}).`, say('portOwn', { port, name: own.name }));
  const holder = await hostPortHolder(c.engine, port);
  if (holder?.kind === 'app-dry-run') {
    // The OS would say "node (pid <ours>)": it is the app itself, and `ss` would only confirm that.
    return { ...problem('fail', `Port ${port} is held by the app's own dry run on ${c.hostLabel}.`, 'Stop the dry run, or choose another port in the profile.'), portHolder: holder };
  }
  const by = holder ? ` by ${holder.command} (pid ${holder.pid})` : '';
  return problem(
    'fail',
    `Port ${port} is already in use on ${c.hostLabel}${by}.`,
    'Stop whatever listens there, or choose another port in the profile.',
    `ss -ltnp 'sport = :${port}'`,
    c.where,
    holder ? say('portInUseBy', { port, host: hostParam(c), command: holder.command, pid: holder.pid }) : say('portInUse', { port, host: hostParam(c) }),
  );
};

export const shm: Check = async (c) => {
  if (c.profile.mode === 'native') return skip("Native mode uses the host's /dev/shm directly.", say('shmNative'));
  if (c.profile.shm.mode === 'size') {
    const size = c.profile.shm.gb;
    if (size >= SHM_RECOMMENDED_GIB) return pass(`The container gets ${size} GiB of shared memory.`, say('shmSize', { size }));
    return problem(
      'warn',
      `The container gets only ${size} GiB of shared memory; NCCL and Ray need more (AgentJet's docs use 32–64 GiB).`,
      `Raise the shared memory to at least ${SHM_RECOMMENDED_GIB} GiB in the profile, or choose "IPC host".`,
      null,
      null,
      say('shmSmall', { size, need: SHM_RECOMMENDED_GIB }),
    );
  }
  const why = noHostReason(c);
  if (why) return skip(`IPC host gives the container the host's /dev/shm. ${why}`, say('shmHostNoShell', { endpoint: c.engine.summary.endpoint }));
  const result = await c.exec('df -Pk /dev/shm', 10_000);
  const df = result.code === 0 ? dfBytesOf(result.stdout) : null;
  if (df === null) return problem('warn', `Could not read the size of /dev/shm on ${c.hostLabel}.`, 'Check it by hand.', 'df -h /dev/shm', c.where, say('shmUnknown', { host: hostParam(c) }));
  const sizes = `${gib(df.sizeBytes)}, ${gib(df.availableBytes)} free`;
  const shmWords = { size: gib(df.sizeBytes), free: gib(df.availableBytes), host: hostParam(c), need: SHM_RECOMMENDED_GIB, remount: SHM_RECOMMENDED_GIB * 2 };
  if (df.sizeBytes >= SHM_RECOMMENDED_GIB * GIB) return pass(`IPC host: the container shares the host's /dev/shm (${sizes} on ${c.hostLabel}).`, say('shmHostOk', shmWords));
  return problem(
    'warn',
    `IPC host: ${c.hostLabel}'s /dev/shm holds only ${sizes}; NCCL and Ray need at least ${SHM_RECOMMENDED_GIB} GiB.`,
    `Enlarge /dev/shm on the host (it is a tmpfs: remount it with size=${SHM_RECOMMENDED_GIB * 2}G), or give the container its own shared memory size instead.`,
    `sudo mount -o remount,size=${SHM_RECOMMENDED_GIB * 2}G /dev/shm`,
    c.where,
    say('shmHostSmall', shmWords),
  );
};

export const nativeAjet: Check = async (c) => {
  if (c.profile.mode !== 'native') return skip('The profile runs the swarm server in a container, not natively.', say('notNative'));
  const why = noHostReason(c);
  if (why) return problem('fail', `Native mode needs a shell on the engine's host, and this engine has none. ${why}`, 'Add the machine as an SSH server and make the profile there.');
  // The very check Start makes (bash where there is one, as users write `source …`), so the doctor
  // never fails a line that would start, nor passes one that would not.
  const activate = c.profile.nativeActivate?.trim();
  const result = await c.exec(whichScript(activate ? activate : null, 'ajet-swarm'), 15_000);
  const found = result.stdout.trim().split('\n').slice(-1)[0] ?? '';
  if (result.code === 0 && found) return pass(`ajet-swarm is at ${found} on ${c.hostLabel}${activate ? ' after the activate line' : ''}.`, say(activate ? 'ajetFoundActivated' : 'ajetFound', { path: found, host: hostParam(c) }));
  const said = result.stderr.trim().split('\n').slice(-1)[0];
  return problem(
    'fail',
    `ajet-swarm is not installed where the profile runs it: not on the PATH of ${c.hostLabel}${activate ? ` after "${activate}"` : ''}${said ? ` (${said})` : ''}.`,
    'Install AgentJet with its training extra on that host in a venv (or conda env), and give the line that activates it in the profile (here: . ~/AgentJet/.venv/bin/activate):',
    "git clone https://github.com/modelscope/AgentJet ~/AgentJet && cd ~/AgentJet && python3 -m venv .venv && . .venv/bin/activate && pip install -e '.[verl]'",
    c.where,
  );
};
