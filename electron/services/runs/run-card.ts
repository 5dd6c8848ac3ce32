import type { RunDetail } from '../../shared/schemas-runs';
import { redactText } from '../util/redact';
import { escapeXml, rewardChartSvg } from './card-chart';
import { redactRunText } from './run-redact';

/** The card's words for how a run ended (English: the card is a file for a notebook or a pull request). */
const END_WORDS: Record<string, string> = {
  stopped: 'stopped from the app',
  'stopped-outside': 'stopped outside the app',
  killed: 'killed',
  'out-of-memory': 'out of memory',
  'unexpected-stop': 'the server stopped by itself',
  crashed: 'crashed',
  'time-limit': 'Slurm time limit',
  'node-failure': 'node failure',
  preempted: 'preempted',
  cancelled: 'cancelled in the scheduler',
  'engine-stopped': 'the engine stopped (a client stopped it, or the trainer ended)',
  'boot-failed': 'the engine failed to boot',
  lost: 'the server vanished without an end the app could read',
};

function duration(run: RunDetail, now: number): string {
  const ms = (run.endedAt ? Date.parse(run.endedAt) : now) - Date.parse(run.startedAt);
  if (!Number.isFinite(ms) || ms < 0) return 'unknown';
  const s = Math.round(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h > 0 ? `${h} h ${m} min` : m > 0 ? `${m} min ${s % 60} s` : `${s} s`;
}

const num = (n: number | null, digits = 3): string => (n === null ? '—' : String(Number(n.toFixed(digits))));

/** The facts every card lists, as label/value pairs (values are plain text; each format escapes them). */
export function cardFacts(run: RunDetail, now: number): [string, string][] {
  const s = run.stats;
  return [
    ['Run', run.runId],
    ['Server', run.serverName],
    ['Profile', run.profileLabel ?? '—'],
    ['Engine', `${run.engineId}${run.engineKind ? ` (${run.engineKind})` : ''}`],
    ['Image', run.image ?? '—'],
    ['Image digest', run.imageDigest ?? 'unknown'],
    ['Started', run.startedAt],
    ['Ended', run.endedAt ?? 'still running'],
    ['Duration', duration(run, now)],
    ['End', run.endKind ? `${END_WORDS[run.endKind] ?? run.endKind}${run.endCode !== null ? ` (exit code ${run.endCode})` : ''}` : 'still running'],
    ['Steps', s.steps === 0 ? '0' : `${s.steps} (${s.firstStep}–${s.lastStep}; ${s.observedSteps} with their batch seen)`],
    ['Reward (mean of a step)', `first ${num(s.rewardFirst)}, last ${num(s.rewardLast)}, best ${num(s.rewardBest)}, mean ${num(s.rewardMean)}`],
    ['Seconds per step', `median ${num(s.stepSecondsMedian, 1)}, mean ${num(s.stepSecondsMean, 1)}`],
    ['Episodes', String(s.episodes)],
    ['GPUs', run.gpus === null ? 'unknown' : String(run.gpus)],
    ['GPU-hours', run.gpuHours === null ? 'unknown' : num(run.gpuHours, 2)],
    ['Cost', run.cost === null ? 'no rate set' : `${num(run.cost, 2)} ${run.currency ?? ''}`.trim()],
    ['Synced YAML sha256', run.yamlSha256 ?? (run.yamlNote ? `not read: ${run.yamlNote}` : 'not read')],
  ];
}

const CARD_CSS = `body{font-family:system-ui,sans-serif;color:#111827;background:#fff;max-width:800px;margin:24px auto;padding:0 16px;line-height:1.4}
table{border-collapse:collapse;width:100%;margin:12px 0}th,td{text-align:left;vertical-align:top;padding:4px 8px;border-bottom:1px solid #e5e7eb}
th{width:32%;font-weight:600}pre{background:#f3f4f6;padding:8px;overflow:auto;font-size:12px;white-space:pre}code{font-family:ui-monospace,monospace}
figure{margin:12px 0}figcaption{font-size:12px;color:#374151}footer{margin-top:24px;font-size:12px;color:#374151}`;

/**
 * One run as a self-contained HTML file: facts, the reward chart as inline SVG, the synced YAML and the scripts'
 * hashes and copies. Its own CSP forbids every fetch (`default-src 'none'`): opened offline it shows the same.
 * Redacted twice: the YAML and scripts as they were kept, and the whole page once more.
 */
export function runCardHtml(run: RunDetail, now = Date.now()): string {
  const title = `Training run ${run.runId} on ${run.serverName}`;
  const rows = cardFacts(run, now)
    .map(([k, v]) => `<tr><th scope="row">${escapeXml(k)}</th><td>${escapeXml(v)}</td></tr>`)
    .join('\n');
  const yaml = run.yaml === null ? `<p>The synced YAML was not read${run.yamlNote ? `: ${escapeXml(run.yamlNote)}` : ''}.</p>` : `<details><summary>Synced YAML${run.yamlPath ? ` (${escapeXml(run.yamlPath)})` : ''}</summary><pre><code>${escapeXml(redactRunText(run.yaml))}</code></pre></details>`;
  const scripts =
    run.scripts.length === 0
      ? '<p>No script of the app ran this training (a client outside the app, or none was found).</p>'
      : run.scripts
          .map((s) => `<details><summary><code>${escapeXml(s.name)}</code> sha256 <code>${s.sha256}</code> (${s.bytes} bytes)</summary><pre><code>${escapeXml(redactRunText(s.text))}</code></pre></details>`)
          .join('\n');
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeXml(title)}</title>
<style>${CARD_CSS}</style>
</head>
<body>
<main>
<h1>${escapeXml(title)}</h1>
<table>
${rows}
</table>
<figure>
${rewardChartSvg(run.points, `Mean reward per step: ${run.serverName}`)}
<figcaption>Mean reward of each step's batch; the band spans its lowest and highest reward. Steps the app did not observe leave a gap.</figcaption>
</figure>
<h2>Configuration</h2>
${yaml}
<h2>Scripts</h2>
${scripts}
</main>
<footer>Exported by AgentSwarm Desktop on ${escapeXml(new Date(now).toISOString())}. Secrets are redacted.</footer>
</body>
</html>
`;
  return redactText(html);
}

/** A fence longer than any run of backticks in the text, so a YAML or script cannot close it. */
function fence(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return '`'.repeat(longest + 1);
}

const mdCell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The same card as Markdown, with the chart as a PNG file beside it (`pngName`; null: no picture). */
export function runCardMarkdown(run: RunDetail, pngName: string | null, now = Date.now()): string {
  const lines = [`# Training run ${run.runId} on ${mdCell(run.serverName)}`, '', '| | |', '|---|---|', ...cardFacts(run, now).map(([k, v]) => `| ${mdCell(k)} | ${mdCell(v)} |`), ''];
  if (pngName) lines.push(`![Mean reward per step](${encodeURI(pngName)})`, '');
  lines.push('## Configuration', '');
  if (run.yaml === null) lines.push(`The synced YAML was not read${run.yamlNote ? `: ${run.yamlNote}` : ''}.`, '');
  else {
    const yaml = redactRunText(run.yaml);
    const f = fence(yaml);
    lines.push(`${f}yaml`, yaml.replace(/\n$/, ''), f, '');
  }
  lines.push('## Scripts', '');
  if (run.scripts.length === 0) lines.push('No script of the app ran this training.', '');
  for (const s of run.scripts) lines.push(`- \`${s.name}\` sha256 \`${s.sha256}\` (${s.bytes} bytes)`);
  lines.push('', `Exported by AgentSwarm Desktop on ${new Date(now).toISOString()}. Secrets are redacted.`, '');
  return redactText(lines.join('\n'));
}
