/**
 * About `count` round tick values from `min` to `max` (1, 2 or 5 times a power of ten apart): one rule for the run
 * card's SVG, drawn by the backend, and the Runs page's compare chart, drawn by the renderer.
 */
export function ticks(min: number, max: number, count = 5): number[] {
  if (!Number.isFinite(min) || !Number.isFinite(max)) return [];
  if (min === max) return [min];
  const raw = (max - min) / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? raw;
  const out: number[] = [];
  for (let v = Math.ceil(min / step) * step; v <= max + step * 1e-9; v += step) out.push(Number(v.toPrecision(10)));
  return out;
}
