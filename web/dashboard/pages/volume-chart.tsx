// The volume chart of the overview: dollars per UTC day and chain (GET /merchant/dashboard/series),
// drawn by uPlot, with a table of the same figures for screen readers.
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { Json } from '../lib/api.ts';
import { usd } from '../lib/format.ts';

const COLOURS = ['#0b57d0', '#e37400', '#188038', '#a142f4', '#d93025', '#12858c', '#795548'];

export function VolumeChart({ data }: { data: Json }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const days: Json[] = data.series;
    const xs = days.map((d) => Date.parse(`${d.date}T00:00:00Z`) / 1000);
    // Chart heights only: the figures themselves stay decimal strings in the table.
    const lines = (data.chains as string[]).map((c) => days.map((d) => Number(d.by_chain[c] ?? 0)));
    const plot = new uPlot({
      width: Math.max(280, el.clientWidth),
      height: 240,
      tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
      series: [{}, ...(data.chains as string[]).map((c, i) => ({ label: c, stroke: COLOURS[i % COLOURS.length], width: 2, points: { show: days.length <= 31 } }))],
      axes: [{}, { values: (_u: uPlot, v: number[]) => v.map((x) => `$${x}`) }],
    }, [xs, ...lines] as uPlot.AlignedData, el);
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(280, el.clientWidth), height: 240 }));
    resize.observe(el);
    return () => { resize.disconnect(); plot.destroy(); };
  }, [data]);
  const shown = (data.series as Json[]).filter((d) => d.confirmed > 0);
  return (
    <figure>
      <div ref={box} class="chart" role="img" aria-label={`Confirmed volume per day and chain, last ${data.days} days`} />
      {data.chains.length === 0 && <figcaption class="muted">No confirmed payment in these {data.days} days.</figcaption>}
      <details>
        <summary>Figures by day</summary>
        <div class="table-wrap"><table>
          <caption class="sr-only">Confirmed payments by day</caption>
          <thead><tr><th scope="col">Day (UTC)</th><th scope="col">Confirmed</th><th scope="col">Volume</th>{data.chains.map((c: string) => <th scope="col" key={c}>{c}</th>)}</tr></thead>
          <tbody>{shown.map((d) => <tr key={d.date}><td>{d.date}</td><td>{d.confirmed}</td><td>{usd(d.volume_usd)}</td>{data.chains.map((c: string) => <td key={c}>{d.by_chain[c] ? usd(d.by_chain[c]) : '—'}</td>)}</tr>)}</tbody>
        </table></div>
      </details>
    </figure>
  );
}
