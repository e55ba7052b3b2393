import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

/** One plotted series: its label, colour and values (one per x). */
export interface ChartSeries {
  label: string;
  stroke: string;
  values: number[];
}

/**
 * A small uPlot chart. `x` are unix seconds (a time axis) unless `categories` names them (then
 * bars at 0..n-1, labelled by category: the per-tool chart). Rebuilt when the data changes;
 * destroyed on unmount so a page switch leaves no canvas or listener behind.
 */
export function Chart({ title, testId, x, series, categories, height = 220 }: { title: string; testId: string; x: number[]; series: ChartSeries[]; categories?: string[]; height?: number }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el || x.length === 0) return;
    const bars = categories ? uPlot.paths.bars?.({ size: [0.6, 60] }) : undefined;
    const opts: uPlot.Options = {
      width: Math.max(280, Math.min(el.clientWidth || 640, 900)),
      height,
      scales: { x: { time: !categories } },
      axes: [categories ? { values: (_u, splits) => splits.map((v) => categories[v] ?? '') } : {}, {}],
      series: [{}, ...series.map((s) => ({ label: s.label, stroke: s.stroke, width: 2, ...(bars ? { paths: bars, fill: s.stroke } : {}) }))],
    };
    const plot = new uPlot(opts, [x, ...series.map((s) => s.values)], el);
    return () => plot.destroy();
  }, [JSON.stringify({ x, series, categories })]);
  return (
    <figure class="chart" data-testid={testId}>
      <figcaption>{title}</figcaption>
      <div ref={box} />
    </figure>
  );
}
