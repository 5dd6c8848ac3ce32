import type { TrainingPoint } from '../../../../../electron/shared/schemas-profiles';
import { t } from '../../../lib/i18n';
import { formatNumber } from './training-format';

/** A step's duration in short words: "42.5 s", "3 min 5 s", "2 h 10 min"; "—" when unknown. */
export function secondsText(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return t('training.none');
  if (seconds < 120) return t('training.time.seconds', { n: formatNumber(seconds, 1) });
  const whole = Math.round(seconds);
  if (whole < 3600) return t('training.time.minutes', { m: Math.floor(whole / 60), s: whole % 60 });
  return t('training.time.hours', { h: Math.floor(whole / 3600), m: Math.floor((whole % 3600) / 60) });
}

/** A step's episode count as the table says it: "8", "at least 3" (seen before the batch was complete), "not observed". */
export function episodesText(point: TrainingPoint): string {
  if (point.batch === 'unobserved' || point.episodes === null) return t('training.steps.unobserved');
  if (point.batch === 'partial') return t('training.steps.partial', { n: point.episodes });
  return String(point.episodes);
}

/** A count the server may not report (tokens, failures): the number, or "not reported". */
export function reportedText(value: number | null, point: TrainingPoint): string {
  if (point.batch === 'unobserved') return t('training.none');
  return value === null ? t('training.steps.notReported') : String(value);
}

/** The tooltip of one step on the chart, line by line. */
export function tooltipLines(point: TrainingPoint): string[] {
  const lines = [t('training.tooltip.step', { step: point.step })];
  if (point.batch === 'unobserved' || point.episodes === null) return [...lines, t('training.tooltip.unobserved')];
  lines.push(point.batch === 'partial' ? t('training.tooltip.partial', { episodes: point.episodes }) : t('training.tooltip.episodes', { episodes: point.episodes }));
  if (point.rewardMean !== null) {
    lines.push(t('training.tooltip.reward', { mean: formatNumber(point.rewardMean), std: formatNumber(point.rewardStd) }));
    lines.push(t('training.tooltip.range', { min: formatNumber(point.rewardMin), max: formatNumber(point.rewardMax) }));
  }
  if (point.seconds !== null) lines.push(`${t('training.steps.time')}: ${secondsText(point.seconds)}`);
  if (point.llmTokens !== null) lines.push(`${t('training.steps.tokens')}: ${point.llmTokens}`);
  if (point.failures !== null) lines.push(`${t('training.steps.failures')}: ${point.failures}`);
  return lines;
}
