import type { TrainingPoint } from '../../shared/schemas-training';
import { ticks } from '../../shared/chart-ticks';

export const CHART_WIDTH = 720;
export const CHART_HEIGHT = 300;
const PAD = { left: 56, right: 16, top: 28, bottom: 40 };

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

export { ticks };

const fmt = (n: number): string => (Math.abs(n) >= 1000 || Number.isInteger(n) ? String(Math.round(n)) : n.toFixed(Math.abs(n) < 1 ? 2 : 1));

/**
 * The run card's chart: the mean reward per step as a line, the batch's min–max as a band, as a self-contained
 * SVG (no fonts, scripts or links to fetch). Steps without a reward leave a gap. Every label is escaped.
 */
export function rewardChartSvg(points: readonly TrainingPoint[], title: string): string {
  const W = CHART_WIDTH;
  const H = CHART_HEIGHT;
  const shown = points.filter((p): p is TrainingPoint & { rewardMean: number } => p.rewardMean !== null && Number.isFinite(p.rewardMean));
  const head = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" role="img" aria-label="${escapeXml(title)}" data-chart="reward">`;
  const frame = `<rect x="0" y="0" width="${W}" height="${H}" fill="#ffffff"/><text x="${PAD.left}" y="18" font-family="sans-serif" font-size="13" fill="#1f2937">${escapeXml(title)}</text>`;
  if (shown.length === 0) {
    return `${head}${frame}<text x="${W / 2}" y="${H / 2}" text-anchor="middle" font-family="sans-serif" font-size="13" fill="#4b5563">No step with a reward was recorded.</text></svg>`;
  }
  const steps = shown.map((p) => p.step);
  const lows = shown.map((p) => p.rewardMin ?? p.rewardMean);
  const highs = shown.map((p) => p.rewardMax ?? p.rewardMean);
  const [x0, x1] = [Math.min(...steps), Math.max(...steps)];
  let [y0, y1] = [Math.min(...lows), Math.max(...highs)];
  if (y0 === y1) [y0, y1] = [y0 - 0.5, y1 + 0.5];
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const x = (s: number) => PAD.left + (x1 === x0 ? plotW / 2 : ((s - x0) / (x1 - x0)) * plotW);
  const y = (v: number) => PAD.top + plotH - ((v - y0) / (y1 - y0)) * plotH;
  const grid = ticks(y0, y1)
    .map((v) => `<line x1="${PAD.left}" x2="${W - PAD.right}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="#e5e7eb"/><text x="${PAD.left - 6}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end" font-family="sans-serif" font-size="11" fill="#374151">${fmt(v)}</text>`)
    .join('');
  const xTicks = ticks(x0, x1)
    .filter((s) => Number.isInteger(s))
    .map((s) => `<text x="${x(s).toFixed(1)}" y="${H - PAD.bottom + 16}" text-anchor="middle" font-family="sans-serif" font-size="11" fill="#374151">${s}</text>`)
    .join('');
  const band = [...shown.map((p, i) => `${x(p.step).toFixed(1)},${y(highs[i]!).toFixed(1)}`), ...shown.map((p, i) => `${x(p.step).toFixed(1)},${y(lows[i]!).toFixed(1)}`).reverse()].join(' ');
  const line = shown.map((p) => `${x(p.step).toFixed(1)},${y(p.rewardMean).toFixed(1)}`).join(' ');
  const dots = shown.length <= 60 ? shown.map((p) => `<circle cx="${x(p.step).toFixed(1)}" cy="${y(p.rewardMean).toFixed(1)}" r="2.5" fill="#1d4ed8"/>`).join('') : '';
  const axes = `<line x1="${PAD.left}" x2="${PAD.left}" y1="${PAD.top}" y2="${H - PAD.bottom}" stroke="#6b7280"/><line x1="${PAD.left}" x2="${W - PAD.right}" y1="${H - PAD.bottom}" y2="${H - PAD.bottom}" stroke="#6b7280"/>`;
  const labels = `<text x="${(PAD.left + W - PAD.right) / 2}" y="${H - 6}" text-anchor="middle" font-family="sans-serif" font-size="12" fill="#1f2937">global step</text><text x="14" y="${PAD.top + plotH / 2}" text-anchor="middle" font-family="sans-serif" font-size="12" fill="#1f2937" transform="rotate(-90 14 ${PAD.top + plotH / 2})">reward (mean; band: min–max)</text>`;
  return `${head}${frame}${grid}${axes}<polygon points="${band}" fill="#bfdbfe" fill-opacity="0.6" stroke="none"/><polyline points="${line}" fill="none" stroke="#1d4ed8" stroke-width="2"/>${dots}${xTicks}${labels}</svg>`;
}
