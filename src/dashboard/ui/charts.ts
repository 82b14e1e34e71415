// Line charts drawn by uPlot (a 50 KB canvas chart library): views and visitors over time, and an
// article's drop-off curve. Each chart follows its container's width.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

const palette = { views: '#4f46e5', visitors: '#0d9488', readers: '#c2410c' };

function sized(container: HTMLElement, build: (width: number) => uPlot): uPlot {
  const chart = build(Math.max(240, container.clientWidth));
  const observer = new ResizeObserver(() =>
    chart.setSize({ width: Math.max(240, container.clientWidth), height: 220 }),
  );
  observer.observe(container);
  return chart;
}

export interface Series {
  /** Unix seconds of each bucket's start. */
  times: number[];
  views: number[];
  visitors: number[];
  hourly: boolean;
}

export function timeSeriesChart(container: HTMLElement, series: Series): uPlot {
  return sized(
    container,
    (width) =>
      new uPlot(
        {
          width,
          height: 220,
          cursor: { drag: { x: false, y: false } },
          scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max * 1.1)] } },
          axes: [
            { values: series.hourly ? '{HH}:00' : '{MMM} {D}', stroke: '#475569' },
            { stroke: '#475569', size: 48 },
          ],
          series: [
            {},
            { label: 'Views', stroke: palette.views, width: 2, fill: 'rgba(79,70,229,0.08)' },
            { label: 'Visitors', stroke: palette.visitors, width: 2 },
          ],
        },
        [series.times, series.views, series.visitors],
        container,
      ),
  );
}

/** `shares[i]`: percent of readers still reading at `positions[i]` percent of the text. */
export function dropOffChart(container: HTMLElement, positions: number[], shares: number[]): uPlot {
  return sized(
    container,
    (width) =>
      new uPlot(
        {
          width,
          height: 220,
          cursor: { drag: { x: false, y: false } },
          scales: { x: { time: false, range: [0, 100] }, y: { range: [0, 100] } },
          axes: [
            { stroke: '#475569', values: (_u, ticks) => ticks.map((tick) => `${tick}%`) },
            { stroke: '#475569', size: 48, values: (_u, ticks) => ticks.map((tick) => `${tick}%`) },
          ],
          series: [
            { label: 'Position in the text' },
            { label: 'Still reading', stroke: palette.readers, width: 2, fill: 'rgba(194,65,12,0.08)' },
          ],
        },
        [positions, shares],
        container,
      ),
  );
}
