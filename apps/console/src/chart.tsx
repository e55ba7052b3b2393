import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

/** One plotted series: its label, colour and values (one per x). */
export interface ChartSeries {
  label: string;
  stroke: string;
  values: number[];
}

/** At most this many x-axis labels: more would overlap at 800 px. */
const MAX_TICKS = 8;

/** Indexes of the labelled ticks: every k-th from the first, and always the last. */
export function tickIndexes(n: number): number[] {
  if (n <= 0) return [];
  const step = Math.max(1, Math.ceil(n / MAX_TICKS));
  const out: number[] = [];
  for (let i = 0; i < n; i += step) out.push(i);
  if (out[out.length - 1] !== n - 1) {
    // The last tick would sit too close to the one before it: drop that one, keep the window's end.
    if (n - 1 - out[out.length - 1]! < step / 2 && out.length > 1) out.pop();
    out.push(n - 1);
  }
  return out;
}

/**
 * A small uPlot chart over categories (the days of the chosen window, every one present, zero when
 * quiet): the x axis spans exactly the window whatever the data, each tick and the cursor's legend
 * read as the category's label. The labels drawn are also written to `data-ticks` and the values
 * to a table for screen readers. Rebuilt when the data changes; destroyed on unmount.
 */
export function Chart({
  title,
  testId,
  labels,
  series,
  height = 220,
}: {
  title: string;
  testId: string;
  labels: string[];
  series: ChartSeries[];
  height?: number;
}) {
  const box = useRef<HTMLDivElement>(null);
  const fig = useRef<HTMLElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el || labels.length === 0) return;
    const n = labels.length;
    const ticks = tickIndexes(n);
    const label = (v: number | null) => (v === null ? '' : (labels[Math.round(v)] ?? ''));
    const opts: uPlot.Options = {
      width: Math.max(280, Math.min(el.clientWidth || 640, 900)),
      height,
      scales: { x: { time: false, range: () => [-0.5, n - 0.5] } },
      axes: [
        {
          splits: () => ticks,
          values: (_u, splits) => {
            const shown = splits.map((v) => label(v));
            fig.current?.setAttribute('data-ticks', shown.join('|'));
            return shown;
          },
        },
        { values: (_u, splits) => splits.map((v) => (Number.isInteger(v) ? String(v) : v.toFixed(1))) },
      ],
      // The legend reads the latest day until the cursor points at another (uPlot shows "--" otherwise).
      // When the cursor leaves the plot, it reads the latest day again instead of "--".
      hooks: { ready: [(u) => u.setLegend({ idx: n - 1 })], setCursor: [(u) => u.cursor.idx == null && u.setLegend({ idx: n - 1 })] },
      series: [
        { label: 'Day', value: (_u, v) => label(v) },
        ...series.map((s) => ({ label: s.label, stroke: s.stroke, width: 2, points: { show: n <= 31 } })),
      ],
    };
    const plot = new uPlot(opts, [labels.map((_, i) => i), ...series.map((s) => s.values)], el);
    // Follow the page's width (a narrower window, the nav folding above the page).
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(280, Math.min(el.clientWidth || 640, 900)), height }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [JSON.stringify({ labels, series })]);
  return (
    <figure
      class="chart"
      data-testid={testId}
      ref={fig}
      data-first={labels[0]}
      data-last={labels[labels.length - 1]}
      data-points={labels.length}
    >
      <figcaption>{title}</figcaption>
      <div ref={box} aria-hidden="true" />
      <table class="sr-only" data-testid={`${testId}-data`}>
        <caption>{title}</caption>
        <thead>
          <tr>
            <th scope="col">Day</th>
            {series.map((s) => (
              <th key={s.label} scope="col">
                {s.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {labels.map((l, i) => (
            <tr key={l}>
              <th scope="row">{l}</th>
              {series.map((s) => (
                <td key={s.label}>{s.values[i]}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}

/** Horizontal bars, largest first, with the label beside each bar (labels never overlap, however many). */
export function Bars({
  title,
  testId,
  rows,
}: {
  title: string;
  testId: string;
  rows: Array<{ label: string; value: number; note?: string }>;
}) {
  const max = Math.max(1, ...rows.map((r) => r.value));
  return (
    <figure class="chart" data-testid={testId}>
      <figcaption>{title}</figcaption>
      <ol class="bars">
        {rows.map((r) => (
          <li key={r.label}>
            <span class="bar-label mono" title={r.label}>
              {r.label}
            </span>
            <span class="bar-track" aria-hidden="true">
              <span class="bar" style={{ width: `${(100 * r.value) / max}%` }} />
            </span>
            <span class="bar-value">
              {r.value}
              {r.note && <span class="muted small"> {r.note}</span>}
            </span>
          </li>
        ))}
      </ol>
    </figure>
  );
}
